"""The Tournament page's spread of scores: each agent's score per round in every match it
played, its mean and the 95% interval of that mean, agents in the order of the standings."""

from __future__ import annotations

import altair as alt
import pandas as pd

from pdbench.column_labels import label, number_spec
from pdbench.ui.palette import name_scale
from pdbench.ui.pd.charts import FIT_WIDTH

__all__ = ["MOST_POINTS_PER_AGENT", "spread_as_boxes", "standings_spread"]

_SPREAD_TITLE = "score per round (points): a point per match, a tick the mean"
_BOX_TITLE = "score per round (points): a box per agent's matches, a tick the mean"
MOST_POINTS_PER_AGENT = 150
"""Above this many matches of one agent, its matches are drawn as a box (quartiles, whiskers
to the extremes) instead of a point each: thousands of points hide the means and their
intervals."""


def spread_as_boxes(scores: pd.DataFrame) -> bool:
    """Whether :func:`standings_spread` draws boxes: some agent played more than
    :data:`MOST_POINTS_PER_AGENT` matches."""
    return bool(not scores.empty and scores["agent"].value_counts().max() > MOST_POINTS_PER_AGENT)


def _spread_boxes(scores: pd.DataFrame, order: list[str], title: str) -> alt.LayerChart:
    """A box per agent, computed here (five numbers an agent, not a point per match): the
    whisker from its lowest to its highest score per round, the box its quartiles."""
    quantiles = (
        scores.groupby("agent")["score_per_round"]
        .quantile([0.0, 0.25, 0.75, 1.0])
        .unstack()
        .set_axis(["lowest", "q1", "q3", "highest"], axis=1)
        .reset_index()
    )
    base = alt.Chart(quantiles).encode(
        y=alt.Y("agent:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
        color=alt.Color("agent:N", scale=name_scale(order), legend=None),
        tooltip=[
            alt.Tooltip("agent:N", title="agent"),
            *(
                alt.Tooltip(f"{column}:Q", title=name, format=number_spec("score_per_round"))
                for column, name in (("lowest", "lowest"), ("q1", "first quartile"),
                                     ("q3", "third quartile"), ("highest", "highest"))
            ),
        ],
    )  # fmt: skip
    whiskers = base.mark_rule(opacity=0.6).encode(
        x=alt.X("lowest:Q", title=title), x2=alt.X2("highest:Q")
    )
    box = base.mark_bar(size=18, opacity=0.45).encode(
        x=alt.X("q1:Q", title=title), x2=alt.X2("q3:Q")
    )
    return alt.LayerChart(layer=[whiskers, box])


def standings_spread(scores: pd.DataFrame, standings: pd.DataFrame) -> alt.LayerChart:
    """Each agent's score per round in every match it played (a point per match, self-play
    left out, rows of tournament_match_scores; a box per agent past
    :data:`MOST_POINTS_PER_AGENT` matches), its mean (the standings' number, a tick) and the
    95% interval of that mean (the standings' ``mean_score_per_round_ci_low`` to
    ``_ci_high``, a bar), agents in the order of the standings."""
    order = standings["agent"].tolist()
    boxes = spread_as_boxes(scores)
    title = _BOX_TITLE if boxes else _SPREAD_TITLE
    base = alt.Chart(scores).encode(
        y=alt.Y("agent:N", sort=order, title=None, axis=alt.Axis(labelLimit=220)),
        color=alt.Color("agent:N", scale=name_scale(order), legend=None),
    )
    if boxes:
        matches = _spread_boxes(scores, order, title)
    else:
        matches = (
            base.mark_circle(size=36, opacity=0.55)
            .encode(
                x=alt.X("score_per_round:Q", title=title),
                yOffset=alt.YOffset("jitter:Q", scale=alt.Scale(domain=[-1, 1])),
                tooltip=[
                    alt.Tooltip("agent:N", title="agent"),
                    alt.Tooltip("opponent:N", title="opponent"),
                    alt.Tooltip("replicate:Q", title="replicate"),
                    alt.Tooltip(
                        "score_per_round:Q",
                        title="score per round",
                        format=number_spec("score_per_round"),
                    ),
                ],
            )
            .transform_calculate(jitter="random() * 1.6 - 0.8")
        )
    means = (
        alt.Chart(scores.groupby("agent", as_index=False)["score_per_round"].mean())
        .mark_tick(color="black", thickness=3, size=26)
        .encode(
            y=alt.Y("agent:N", sort=order, title=None),
            x=alt.X("score_per_round:Q", title=title),
        )
    )
    low, high = "mean_score_per_round_ci_low", "mean_score_per_round_ci_high"
    if low not in standings.columns:  # built by an older pdbench: no interval to draw
        standings = standings.assign(**{low: None, high: None})
    with_interval = standings.dropna(subset=[low, high])[["agent", low, high]]
    intervals = (
        alt.Chart(with_interval)
        .mark_rule(color="black", strokeWidth=2)
        .encode(
            y=alt.Y("agent:N", sort=order, title=None),
            x=alt.X(f"{low}:Q", title=title),
            x2=alt.X2(f"{high}:Q"),
            tooltip=[
                alt.Tooltip("agent:N", title="agent"),
                alt.Tooltip(f"{low}:Q", title=label(low), format=number_spec(low)),
                alt.Tooltip(f"{high}:Q", title=label(high), format=number_spec(high)),
            ],
        )
    )
    return alt.LayerChart(layer=[matches, means, intervals]).properties(
        autosize=FIT_WIDTH, height=max(120, 36 * len(order))
    )
