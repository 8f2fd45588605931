"""How the viewer writes a number from a mart: one place, so the tests can say
the same."""

from __future__ import annotations

from typing import Literal

import pandas as pd

from pdbench.column_labels import MISSING, number_spec
from pdbench.metric_catalogue import Metric
from pdbench.number_text import share_text

__all__ = ["ValueKind", "format_value", "number_format"]

ValueKind = Literal["rate", "points", "round", "count", "mean_count", "flag"]


def _missing(value: object) -> bool:
    return value is None or bool(pd.isna(value))


def format_value(value: object, kind: ValueKind) -> str:
    """``value`` as shown: rates in percent (one decimal, more for a rate that is not 0 or 1
    but would read so: :func:`~pdbench.number_text.share_text`), points with the decimals the
    catalogue gives points (``score``: 3), rounds
    and mean counts whole when they are whole (a replicate's) and with one decimal otherwise
    (a mean over replicates), counts whole; ``—`` for NULL, as every table shows it (a round
    that never came is ``never``)."""
    if _missing(value):
        return "never" if kind == "round" else MISSING
    if kind == "rate":
        return share_text(float(value))  # type: ignore[arg-type]
    if kind == "points":
        return format(float(value), number_spec("score"))  # type: ignore[arg-type]
    if kind in ("round", "mean_count"):
        number = float(value)  # type: ignore[arg-type]
        return f"{number:.0f}" if number.is_integer() else f"{number:.1f}"
    if kind == "flag":
        return "yes" if bool(value) else "no"
    return f"{int(value):d}"  # type: ignore[call-overload]


def number_format(metric: Metric) -> str:
    """The Streamlit number format of a metric, as its catalogue entry says: a share in
    percent, a number with its decimals, a mean round with one decimal, a count whole."""
    return {
        "percent": "percent",
        "number": f"%.{metric.decimals}f",
        "pvalue": "%.3f",
        "round": "%.1f",
        "seconds": "%.2f s",
        "usd": "$%.4f",
    }.get(metric.format, "%d")
