"""The Tournament page's spread of scores: a point per match while an agent has few, a box
once thousands of points would hide the means and their intervals."""

from __future__ import annotations

import json

import pandas as pd
from pdbench.ui.pd import standings_chart as charts


def _scores(matches_per_agent: int) -> pd.DataFrame:
    rows = [
        {"agent": agent, "opponent": "X", "replicate": i, "score_per_round": (i % 7) / 2}
        for agent in ("ALLD", "TFT")
        for i in range(matches_per_agent)
    ]
    return pd.DataFrame(rows)


def _marks(spec: dict) -> list[str]:
    """The marks of a chart's layers, a nested layer's in order."""
    if "layer" in spec:
        return [mark for layer in spec["layer"] for mark in _marks(layer)]
    mark = spec["mark"]
    return [mark["type"] if isinstance(mark, dict) else mark]


def _spec(chart: object) -> dict:
    return json.loads(chart.to_json())  # type: ignore[attr-defined]


STANDINGS = pd.DataFrame(
    {
        "agent": ["ALLD", "TFT"],
        "mean_score_per_round_ci_low": [1.0, 1.2],
        "mean_score_per_round_ci_high": [2.0, 2.1],
    }
)


def test_few_matches_are_a_point_each() -> None:
    few = _scores(charts.MOST_POINTS_PER_AGENT)
    assert not charts.spread_as_boxes(few)
    assert _marks(_spec(charts.standings_spread(few, STANDINGS))) == ["circle", "tick", "rule"]


def test_thousands_of_matches_are_a_box_per_agent_under_its_mean_and_interval() -> None:
    many = _scores(3000)  # 6,000 points over two agents
    assert charts.spread_as_boxes(many)
    spec = _spec(charts.standings_spread(many, STANDINGS))
    assert _marks(spec) == ["rule", "bar", "tick", "rule"]
    # the boxes are five numbers an agent, not 6,000 points: (i % 7) / 2 spans 0 to 3
    (boxes,) = [rows for rows in spec["datasets"].values() if "lowest" in rows[0]]
    assert {row["agent"]: (row["lowest"], row["highest"]) for row in boxes} == {
        "ALLD": (0.0, 3.0), "TFT": (0.0, 3.0)}  # fmt: skip
