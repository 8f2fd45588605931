"""Altair charts of the PD's pages: each takes rows as the marts or the raw files hold them and
draws them; none computes a number (the band around cooperation over time is the mart's)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pdbench.column_labels import number_spec
from pdbench.ui.palette import PALETTE, name_scale

__all__ = [
    "ACTION_COLORS",
    "FEW_REPLICATES",
    "FIT_WIDTH",
    "SIDE_COLORS",
    "actions_timeline",
    "condition_bars",
    "cooperation_over_time",
    "cumulative_payoff",
    "memory_one_heatmap",
    "payoff_heatmap",
    "population_shares",
    "replicates_playing",
    "side_bars",
    "with_agent_labels",
]

SIDE_COLORS: list[str] = [PALETTE[0], PALETTE[1]]
"""Agent A blue and agent B orange, in every chart of one match or condition."""

ACTION_COLORS = {"C": "#009E73", "D": "#D55E00"}
"""Cooperation bluish green, defection vermillion: told apart with every kind of colour
blindness, and by the legend's letters."""


def with_agent_labels(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (one per agent side: ``side``, ``agent_name``) with the column ``agent``:
    the seat and the name, ``A · tft``, as every page writes an agent."""
    seat = rows["side"].str.removeprefix("agent_").str.upper()
    return rows.assign(agent=seat + " · " + rows["agent_name"].astype(str))


FIT_WIDTH = alt.AutoSizeParams(type="fit-x", contains="padding")
"""Stretch to the page's width but keep the stated height for the plot itself (Streamlit's
default, ``fit``, squeezes axes and legends into the height)."""


def _agent_labels(rows: pd.DataFrame) -> list[str]:
    """The ``agent`` labels of ``rows`` (one row per agent side, or more), A first."""
    return list(rows.sort_values("side")["agent"].drop_duplicates())


def _agent_colors(rows: pd.DataFrame) -> alt.Scale:
    """Agent A blue and agent B orange, by their labels in ``rows``."""
    labels = _agent_labels(rows)
    return alt.Scale(domain=labels, range=SIDE_COLORS[: len(labels)])


_ROUND_AXIS = alt.Axis(format="d", tickMinStep=1)
_AGENT_LEGEND = alt.Legend(orient="top", labelLimit=320)


def _agent_rows_axis(labels: list[str], *, centre: bool = False) -> alt.Y:
    """One band per agent, A on top; ``centre`` puts a mark in the middle of its band."""
    return alt.Y(
        "agent:N",
        title=None,
        scale=alt.Scale(type="band", domain=labels, paddingInner=0.12),
        axis=alt.Axis(labelLimit=280, labelFontSize=12),
        bandPosition=0.5 if centre else alt.Undefined,
    )


def actions_timeline(rounds: pd.DataFrame) -> alt.LayerChart:
    """One row of cells per agent, one cell per round (rows as :func:`match_rounds
    <pdbench.ui.pd.reader.match_rounds>` gives them, with ``agent`` labels), coloured by the
    executed action; invalid replies (a fallback was played) carry a black cross, noise flips
    a white dot."""
    labels = _agent_labels(rounds)
    first, last = float(rounds["round_index"].min()), float(rounds["round_index"].max())
    base = alt.Chart(rounds).transform_calculate(
        start="datum.round_index - 0.5",
        end="datum.round_index + 0.5",
        flipped="datum.action != datum.intended_action",
    )
    cells = base.mark_rect(stroke="white", strokeWidth=0.3 if len(rounds) < 600 else 0).encode(
        y=_agent_rows_axis(labels),
        x=alt.X(
            "start:Q",
            title="round",
            scale=alt.Scale(domain=[first - 0.5, last + 0.5], nice=False),
            axis=_ROUND_AXIS,
        ),
        x2="end:Q",
        color=alt.Color(
            "action:N",
            title="action",
            scale=alt.Scale(domain=list(ACTION_COLORS), range=list(ACTION_COLORS.values())),
            legend=alt.Legend(
                orient="top", labelExpr="datum.label == 'C' ? 'C (cooperate)' : 'D (defect)'"
            ),
        ),
        tooltip=[
            alt.Tooltip("round_index:Q", title="round"),
            alt.Tooltip("agent:N"),
            alt.Tooltip("action:N", title="played"),
            alt.Tooltip("intended_action:N", title="intended"),
            alt.Tooltip("payoff:Q"),
            alt.Tooltip("is_valid:N", title="valid reply"),
            alt.Tooltip("attempts:Q"),
        ],
    )
    invalid = base.transform_filter("datum.is_valid == false").mark_point(
        filled=True, shape="cross", color="black", size=60
    )
    flipped = base.transform_filter("datum.flipped").mark_point(
        filled=True, shape="circle", color="white", size=26, opacity=0.95
    )
    marks = [
        mark.encode(
            x=alt.X("round_index:Q", title="round"), y=_agent_rows_axis(labels, centre=True)
        )
        for mark in (invalid, flipped)
    ]
    return alt.LayerChart(layer=[cells, *marks]).properties(autosize=FIT_WIDTH, height=76)


def cumulative_payoff(rounds: pd.DataFrame) -> alt.Chart:
    """Each agent's cumulative payoff (as recorded per round) against the round."""
    chart: alt.Chart = (
        alt.Chart(rounds)
        .mark_line(interpolate="step-after", strokeWidth=2.2)
        .encode(
            x=alt.X("round_index:Q", title="round", axis=_ROUND_AXIS),
            y=alt.Y("cum_payoff:Q", title="cumulative payoff (points)"),
            color=alt.Color("agent:N", scale=_agent_colors(rounds), legend=_AGENT_LEGEND),
            tooltip=[
                alt.Tooltip("round_index:Q", title="round"),
                "agent:N",
                alt.Tooltip("cum_payoff:Q", title="cumulative payoff"),
            ],
        )
        .properties(autosize=FIT_WIDTH, height=260)
    )
    return chart


def cooperation_over_time(rows: pd.DataFrame, agents: pd.DataFrame) -> alt.LayerChart:
    """Condition-level cooperation by round: both agents together (black line, ``rows`` of
    cooperation_over_time) and each agent's own rate (dashed, ``agents``:
    agent_cooperation_over_time with labels); the rounds fewer than :data:`FEW_REPLICATES`
    replicates reached are shaded (:func:`replicates_playing` draws how many)."""
    base = alt.Chart(rows).encode(x=alt.X("round_index:Q", title="round", axis=_ROUND_AXIS))
    few = (
        base.transform_filter(f"datum.n_replicates < {FEW_REPLICATES}")
        .transform_calculate(start="datum.round_index - 0.5", end="datum.round_index + 0.5")
        .mark_rect(color="#dddddd", opacity=0.6)
        .encode(x=alt.X("start:Q", title="round"), x2="end:Q")
    )
    both = base.mark_line(color="black", strokeWidth=2.4).encode(
        y=alt.Y(
            "cooperation_rate:Q",
            title="cooperation rate",
            scale=alt.Scale(domain=[0, 1]),
            axis=alt.Axis(format="%"),
        ),
        tooltip=[
            alt.Tooltip("round_index:Q", title="round"),
            alt.Tooltip("cooperation_rate:Q", title="both agents", format=".1%"),
            alt.Tooltip("n_replicates:Q", title="replicates reaching this round"),
        ],
    )
    per_agent = (
        alt.Chart(agents)
        .mark_line(strokeDash=[4, 3], strokeWidth=1.6)
        .encode(
            x=alt.X("round_index:Q", title="round"),
            y=alt.Y("cooperation_rate:Q", title="cooperation rate"),
            color=alt.Color("agent:N", scale=_agent_colors(agents), legend=_AGENT_LEGEND),
            tooltip=[alt.Tooltip("agent:N"), alt.Tooltip("cooperation_rate:Q", format=".1%")],
        )
    )
    return alt.LayerChart(layer=[few, per_agent, both]).properties(autosize=FIT_WIDTH, height=240)


def replicates_playing(rows: pd.DataFrame) -> alt.Chart:
    """The replicates still playing at each round (``n_replicates`` of the condition rows of
    cooperation_over_time): under a random horizon they end one by one."""
    chart: alt.Chart = (
        alt.Chart(rows)
        .mark_area(color=PALETTE[4], interpolate="step-after")
        .encode(
            x=alt.X("round_index:Q", title="round", axis=_ROUND_AXIS),
            y=alt.Y("n_replicates:Q", title="replicates playing", axis=alt.Axis(format="d")),
            tooltip=[
                alt.Tooltip("round_index:Q", title="round"),
                alt.Tooltip("n_replicates:Q", title="replicates playing"),
            ],
        )
        .properties(autosize=FIT_WIDTH, height=90)
    )
    return chart


FEW_REPLICATES = 5
"""Rounds fewer replicates reached than this are shaded: their rate is a handful of 0/1
moves."""


def memory_one_heatmap(profile: pd.DataFrame) -> alt.LayerChart:
    """P(C | previous round) per agent and previous round (own action first), rows of
    memory_one with ``agent`` labels; a state never visited is a grey cell with no
    number."""
    base = alt.Chart(profile).encode(
        x=alt.X(
            "previous_round:N",
            title="previous round (own action, other's action)",
            sort=["CC", "CD", "DC", "DD"],
            axis=alt.Axis(labelAngle=0, orient="top", labelFontSize=12),
        ),
        y=alt.Y("agent:N", title=None, axis=alt.Axis(labelLimit=260, labelFontSize=12)),
    )
    unvisited = base.transform_filter("!isValid(datum.p_cooperate)").mark_rect(color="#eeeeee")
    visited = base.transform_filter("isValid(datum.p_cooperate)")
    cells = visited.mark_rect().encode(
        color=alt.Color(
            "p_cooperate:Q",
            title="P(C)",
            scale=alt.Scale(
                domain=[0, 0.5, 1], range=[ACTION_COLORS["D"], "#f7f7f7", ACTION_COLORS["C"]]
            ),
            legend=None,
        ),
        tooltip=["agent:N", "previous_round:N", alt.Tooltip("p_cooperate:Q", format=".1%")],
    )
    text = visited.mark_text(fontSize=13).encode(text=alt.Text("p_cooperate:Q", format=".0%"))
    return alt.LayerChart(layer=[unvisited, cells, text]).properties(
        autosize=FIT_WIDTH, height=72, width="container"
    )


def side_bars(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """One row per condition and agent side: the metric ``column`` of that side and its 95%
    interval, as ``aggregates.parquet`` holds them (``<column>_a``, ``<column>_a_ci_low``)."""
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "condition": rows["condition"],
                    "side": f"agent_{side}",
                    "agent": f"{side.upper()} · " + rows[f"agent_{side}_name"].astype(str),
                    "value": rows[f"{column}_{side}"],
                    "ci_low": rows[f"{column}_{side}_ci_low"],
                    "ci_high": rows[f"{column}_{side}_ci_high"],
                }
            )
            for side in "ab"
        ],
        ignore_index=True,
    )


def condition_bars(bars: pd.DataFrame, *, title: str, percent: bool) -> alt.LayerChart:
    """Grouped horizontal bars of one metric per condition and agent side, each with its 95%
    interval (``bars``: condition, side, agent, value, ci_low, ci_high, as aggregates holds
    them per side); a bar without an interval has none drawn, and with no interval at all
    there is no interval layer (Vega warns of an empty layer's infinite extent)."""
    number = ".1%" if percent else ".3f"
    base = alt.Chart(bars).encode(
        y=alt.Y("condition:N", title=None, axis=alt.Axis(labelLimit=260)),
        yOffset=alt.YOffset("side:N"),
    )
    tooltip = [
        alt.Tooltip("condition:N", title="condition"),
        alt.Tooltip("agent:N", title="agent"),
        alt.Tooltip("value:Q", format=number, title=title),
        alt.Tooltip("ci_low:Q", format=number, title="95% low"),
        alt.Tooltip("ci_high:Q", format=number, title="95% high"),
    ]
    drawn = base.mark_bar().encode(
        x=alt.X("value:Q", title=title, axis=alt.Axis(format="%" if percent else "~g")),
        color=alt.Color(
            "side:N",
            scale=alt.Scale(domain=["agent_a", "agent_b"], range=SIDE_COLORS),
            legend=alt.Legend(
                orient="top",
                title=None,
                labelExpr="datum.label == 'agent_a' ? 'agent A' : 'agent B'",
            ),
        ),
        tooltip=tooltip,
    )
    whiskers = (
        base.transform_filter("isValid(datum.ci_low)")
        .mark_errorbar(ticks=True, color="black")
        .encode(x=alt.X("ci_low:Q", title=title), x2="ci_high:Q", tooltip=tooltip)
    )
    layers = [drawn, whiskers] if bars["ci_low"].notna().any() else [drawn]
    return alt.LayerChart(layer=layers).properties(
        autosize=FIT_WIDTH, height=max(120, 40 * bars["condition"].nunique())
    )


def payoff_heatmap(matrix: pd.DataFrame, order: list[str]) -> alt.LayerChart:
    """Mean score per round of the row agent against the column opponent; agents in the
    order given (the standings), pairs that never met left blank."""
    base = alt.Chart(matrix).encode(
        x=alt.X(
            "opponent:N",
            title="opponent",
            scale=alt.Scale(domain=order),
            axis=alt.Axis(labelAngle=-35, labelLimit=220, labelOverlap=False, orient="top"),
        ),
        y=alt.Y(
            "agent:N", title="agent", scale=alt.Scale(domain=order), axis=alt.Axis(labelLimit=220)
        ),
    )
    cells = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color(
            "mean_score_per_round:Q", title="score / round", scale=alt.Scale(scheme="viridis")
        ),
        tooltip=[
            "agent:N",
            "opponent:N",
            alt.Tooltip("mean_score_per_round:Q", title="score / round", format=".3f"),
            alt.Tooltip("mean_opponent_score_per_round:Q", title="opponent's", format=".3f"),
            alt.Tooltip("cooperation_rate:Q", title="agent's cooperation", format=".1%"),
            alt.Tooltip("n_matches:Q", title="matches"),
        ],
    )
    text = base.mark_text(fontSize=12).encode(
        text=alt.Text("mean_score_per_round:Q", format=number_spec("mean_score_per_round")),
        color=alt.condition(
            "datum.mean_score_per_round > 2.5", alt.value("black"), alt.value("white")
        ),
    )
    return alt.LayerChart(layer=[cells, text]).properties(
        autosize=alt.AutoSizeParams(type="pad"), width=alt.Step(56), height=alt.Step(34)
    )


def population_shares(ecosystem: pd.DataFrame) -> alt.Chart:
    """Each agent's share of the population against the generation (``tournament_ecosystem``
    rows), one line per agent."""
    chart: alt.Chart = (
        alt.Chart(ecosystem)
        .mark_line(strokeWidth=2.2)
        .encode(
            x=alt.X("generation:Q", title="generation", axis=_ROUND_AXIS),
            y=alt.Y(
                "population_share:Q",
                title="share of the population",
                axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1]),
            ),
            color=alt.Color(
                "agent:N", title="agent", scale=name_scale(ecosystem["agent"]), legend=_AGENT_LEGEND
            ),
            tooltip=[
                alt.Tooltip("generation:Q", title="generation"),
                "agent:N",
                alt.Tooltip("population_share:Q", title="share", format=".2%"),
            ],
        )
        .properties(autosize=FIT_WIDTH, height=300)
    )
    return chart
