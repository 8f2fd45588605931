"""Planted truth through the whole tournament: mock judges drawing Bradley-Terry verdicts
(:mod:`pdbench.arena.mock_verdicts`) are played by the engine, the pairwise marts are built
by dbt, and each arm's planted size, derived here by hand, lies inside its 95% interval on a
fixed seed (and, where something is planted, the interval leaves out the null).

Strengths atlas 1200, borealis 1000, cirrus 1000, dynamo 800 (mean 1000). By hand:
P(a 200-point stronger answer wins) = 1 / (1 + 10^-0.5) = 0.759747, 400 points 1 / 1.1 =
0.909091, equal strengths 0.5.

- ``arms``: no judge prefers a position, so the Elo truths are the strengths; cirrus prefers
  its own answer with probability 0.6, atlas prefers dynamo by name with probability 0.6.
- ``position``: borealis prefers the answer shown first with probability 0.6.
"""

from __future__ import annotations

import pytest

from tests.integration.bt_mock_runs import play_bt_tournament, read_marts

P200, P400 = 0.759747, 0.909091
ELO = {"atlas": 1200, "borealis": 1000, "cirrus": 1000, "dynamo": 800}
SELF, NAME, FIRST = 0.6, 0.6, 0.6


@pytest.fixture(scope="module")
def arms(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    players = {name: {"strength": elo} for name, elo in ELO.items()}
    players["cirrus"] |= {"self_preference": SELF}
    players["atlas"] |= {"favours": "dynamo", "name_preference": NAME}
    folder = tmp_path_factory.mktemp("bt_arms")
    return read_marts(play_bt_tournament(folder, players, seed=3, questions=10))


@pytest.fixture(scope="module")
def position(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    players = {name: {"strength": elo} for name, elo in ELO.items()}
    players["borealis"] |= {"first_preference": FIRST}
    folder = tmp_path_factory.mktemp("bt_position")
    return read_marts(play_bt_tournament(folder, players, seed=2, questions=5))


def _inside(value: float, row: dict, column: str) -> bool:
    return row[f"{column}_ci_low"] <= value <= row[f"{column}_ci_high"]


def test_the_elo_intervals_hold_the_planted_strengths(arms):
    rows = {row["player"]: row for row in arms["bradley_terry"]}
    for player, elo in ELO.items():
        assert _inside(elo, rows[player], "elo"), rows[player]
    assert [r["player"] for r in sorted(rows.values(), key=lambda r: r["rank"])][::3] == [
        "atlas",
        "dynamo",
    ]


def test_the_self_bias_interval_holds_the_planted_size(arms):
    rows = {row["judge"]: row for row in arms["pairwise_self_bias"]}
    # s * mean(1 - p) over cirrus's opponents: 0.6 * (0.759747 + 0.5 + 0.240253) / 3 = 0.3
    assert _inside(0.3, rows["cirrus"], "self_bias") and rows["cirrus"]["self_bias_ci_low"] > 0
    for honest in ("atlas", "borealis", "dynamo"):
        assert _inside(0.0, rows[honest], "self_bias"), rows[honest]


def test_the_name_bias_interval_holds_the_planted_size(arms):
    rows = {(row["judge"], row["player"]): row for row in arms["pairwise_name_bias"]}
    # dynamo against borealis or cirrus: n * (1 - p) = 0.6 * 0.759747 = 0.455848
    favoured = rows[("atlas", "dynamo")]
    assert _inside(NAME * P200, favoured, "name_bias") and favoured["name_bias_ci_low"] > 0
    # borealis loses it on (borealis, dynamo), nothing on (borealis, cirrus): -0.455848 / 2
    assert _inside(-NAME * P200 / 2, rows[("atlas", "borealis")], "name_bias")
    for judge in ("borealis", "cirrus"):
        assert _inside(0.0, rows[(judge, "dynamo")], "name_bias")


def test_the_first_position_rate_holds_the_planted_share(position):
    rows = {row["judge"]: row for row in position["pairwise_position"]}
    # 0.5 + f / 2 over both orders
    assert _inside(0.5 + FIRST / 2, rows["borealis"], "first_win_rate")
    assert rows["borealis"]["first_win_rate_ci_low"] > 0.5
    for honest in ("atlas", "cirrus", "dynamo"):
        assert _inside(0.5, rows[honest], "first_win_rate"), rows[honest]


def test_the_flip_rate_holds_the_planted_rate(position):
    rows = {row["judge"]: row for row in position["pairwise_position"]}

    def flip(p: float, f: float) -> float:
        # both orders prefer the first answer, or both the second
        return (f + (1 - f) * p) * (f + (1 - f) * (1 - p)) + (1 - f) ** 2 * p * (1 - p)

    # borealis sees (atlas, cirrus), (atlas, dynamo), (cirrus, dynamo) equally often:
    # 0.903899 * 0.696101 + 0.16 * 0.182531 = 0.658410 at 200 points,
    # 0.963636 * 0.636364 + 0.16 * 0.082645 = 0.626446 at 400: (2 * 0.658410 + 0.626446) / 3
    planted = (2 * flip(P200, FIRST) + flip(P400, FIRST)) / 3
    assert planted == pytest.approx(0.647755, abs=1e-5)
    assert _inside(planted, rows["borealis"], "flip_rate")
    # atlas, with no preference, flips 2 p (1 - p): (0.5 + 2 * 0.365066) / 3 = 0.410044
    assert _inside((0.5 + 2 * 2 * P200 * (1 - P200)) / 3, rows["atlas"], "flip_rate")
