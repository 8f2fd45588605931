"""Altair charts of the arena pages: the leaderboard with its intervals, the judges' bias
heatmap, the provider calls by phase; each draws rows as the marts hold them."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pdbench.column_labels import format_cell, number_spec
from pdbench.ui.palette import INTERVAL_COLOR, POINT_COLOR

__all__ = ["bias_heatmap", "calls_by_phase", "leaderboard_intervals"]

_FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")


_SCORE_TITLE = "score (normalised judgements, 0-10; every judge's mean = 5)"


def leaderboard_intervals(board: pd.DataFrame) -> alt.LayerChart:
    """Each player's score (point) and its 95% bootstrap interval (bar), best on top."""
    order = board["player"].tolist()
    base = alt.Chart(board).encode(
        y=alt.Y("player:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
    )
    tooltip = [
        alt.Tooltip("rank:Q"),
        alt.Tooltip("player:N"),
        alt.Tooltip("score:Q", format=number_spec("score")),
        alt.Tooltip("ci_low:Q", title="95% low", format=number_spec("score")),
        alt.Tooltip("ci_high:Q", title="95% high", format=number_spec("score")),
        alt.Tooltip("n_answers:Q", title="answers"),
    ]
    bars = base.mark_rule(strokeWidth=3, color=INTERVAL_COLOR).encode(
        x=alt.X(
            "ci_low:Q",
            title=_SCORE_TITLE,
            scale=alt.Scale(zero=False),
            axis=alt.Axis(tickCount=8),
        ),
        x2="ci_high:Q",
        tooltip=tooltip,
    )
    points = base.mark_point(filled=True, size=110, color=POINT_COLOR).encode(
        x=alt.X("score:Q", title=_SCORE_TITLE), tooltip=tooltip
    )
    labels = base.mark_text(align="left", dx=8, dy=-10, fontSize=11).encode(
        x=alt.X("score:Q", title=_SCORE_TITLE),
        text=alt.Text("score:Q", format=number_spec("score")),
    )
    return alt.LayerChart(layer=[bars, points, labels]).properties(
        autosize=_FIT_WIDTH, height=max(120, 36 * len(order))
    )


def bias_heatmap(bias: pd.DataFrame) -> alt.LayerChart:
    """How far each judge (row) scores each player's answers (column) from the other judges,
    relative to the judge's own overall deviation; flagged pairs are outlined and marked."""
    judges = sorted(bias["judge"].unique())
    players = sorted(bias["player"].unique())
    bias = bias.assign(
        p_text=[format_cell("p_value", p) for p in bias["p_value"]],
        q_text=[format_cell("q_value", q) for q in bias["q_value"]],
    )
    limit = float(bias["relative_deviation"].abs().max() or 1.0)
    base = alt.Chart(bias).encode(
        x=alt.X(
            "player:N", sort=players, title="player (whose answers)", axis=alt.Axis(labelAngle=0)
        ),
        y=alt.Y("judge:N", sort=judges, title="judge"),
    )
    tooltip = [
        "judge:N",
        "player:N",
        alt.Tooltip("flag_kind:N", title="flag"),
        alt.Tooltip(
            "relative_deviation:Q",
            title="relative deviation",
            format=number_spec("relative_deviation", signed=True),
        ),
        alt.Tooltip(
            "mean_deviation:Q",
            title="mean deviation",
            format=number_spec("mean_deviation", signed=True),
        ),
        alt.Tooltip("p_text:N", title="p"),
        alt.Tooltip("q_text:N", title="q (BH)"),
        alt.Tooltip("n_answers:Q", title="answers"),
    ]
    cells = base.mark_rect().encode(
        color=alt.Color(
            "relative_deviation:Q",
            title="relative deviation",
            scale=alt.Scale(scheme="redblue", reverse=True, domain=[-limit, limit]),
        ),
        stroke=alt.condition("datum.is_flagged", alt.value("black"), alt.value(None)),
        strokeWidth=alt.condition("datum.is_flagged", alt.value(3), alt.value(0)),
        tooltip=tooltip,
    )
    text = (
        base.mark_text(fontSize=12)
        .encode(
            text="label:N",
        )
        .transform_calculate(
            label=f"format(datum.relative_deviation, "
            f"'{number_spec('relative_deviation', signed=True)}') "
            "+ (datum.is_flagged ? ' ⚑' : '')"
        )
    )
    return alt.LayerChart(layer=[cells, text]).properties(
        autosize=_FIT_WIDTH, height=max(160, 44 * len(judges))
    )


def calls_by_phase(calls: pd.DataFrame) -> alt.Chart:
    """Provider calls per player, stacked by phase."""
    chart: alt.Chart = (
        alt.Chart(calls)
        .mark_bar()
        .encode(
            y=alt.Y("player:N", title=None),
            x=alt.X("n_calls:Q", title="provider calls"),
            color=alt.Color("phase:N", legend=alt.Legend(orient="top")),
            tooltip=[
                "player:N",
                "phase:N",
                "n_calls:Q",
                "n_invalid:Q",
                "n_errors:Q",
                alt.Tooltip("mean_latency_ms:Q", format=".1f"),
            ],
        )
        .properties(autosize=_FIT_WIDTH, height=max(140, 36 * calls["player"].nunique()))
    )
    return chart
