"""One chart for a signed effect per row with its interval: a point, its 95% interval as a
bar, and a dashed rule at 0 (the calibration page's signed errors, the tricks page's
robustness gaps)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pdbench.column_labels import number_spec

__all__ = ["FIT_WIDTH", "effect_intervals"]

FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")
"""Stretch to the page's width but keep the stated height for the plot itself (Streamlit's
default, ``fit``, squeezes axes into the height)."""


def effect_intervals(
    rows: pd.DataFrame,
    *,
    label: str,
    effect: tuple[str, str],
    interval: tuple[str, str],
    axis_title: str,
    extra_tooltip: list[alt.Tooltip] | None = None,
    drawn_with: str | None = None,
    zero_rule: bool = True,
) -> alt.LayerChart:
    """Row ``label``'s ``effect`` (column, tooltip title) as a point and ``interval`` (low
    and high columns) as a bar, with a rule at 0 (``zero_rule``: an effect, where 0 means
    none); rows without ``drawn_with`` (default: the interval's low end) are left out."""
    column, title = effect
    low, high = interval
    shown = rows.dropna(subset=[drawn_with or low])
    base = alt.Chart(shown).encode(y=alt.Y(f"{label}:N", title=None, sort=None))
    tooltip = [
        alt.Tooltip(f"{label}:N"),
        alt.Tooltip(f"{column}:Q", title=title, format=number_spec(column)),
        alt.Tooltip(f"{low}:Q", title="95% low", format=number_spec(column)),
        alt.Tooltip(f"{high}:Q", title="95% high", format=number_spec(column)),
        *(extra_tooltip or []),
    ]
    bars = base.mark_rule(strokeWidth=3, color="#4e79a7").encode(
        x=alt.X(f"{low}:Q", title=axis_title), x2=f"{high}:Q", tooltip=tooltip
    )
    points = base.mark_point(filled=True, size=110, color="#1f3b5c").encode(
        x=alt.X(f"{column}:Q", title=axis_title), tooltip=tooltip
    )
    zero = (
        alt.Chart(pd.DataFrame({"x": [0.0]}))
        .mark_rule(strokeDash=[4, 4])
        .encode(x=alt.X("x:Q", title=axis_title))
    )
    layers = [bars, points, zero] if zero_rule else [bars, points]
    return alt.LayerChart(layer=layers).properties(height=max(120, 36 * len(shown)))
