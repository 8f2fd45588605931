"""The pairwise bias arms recover planted judges: a first-position-favouring judge, a
self-favouring judge and a brand-favouring judge, each with its planted size inside the
mart's 95% interval, and the honest judges with 0 (or 0.5) inside theirs."""

from __future__ import annotations

from statistics import mean

import duckdb
import pytest
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt

from tests.integration.pairwise_runs import (
    STYLE_TEST_PARENTS,
    biased_verdicts,
    p_beats,
    scoring,
    write_pairwise_run,
)

STRENGTHS = {"ann": 1.0, "bob": 0.5, "cal": 0.0, "dan": -0.5, "eli": -1.0}
FIRST, SELF, FAVOUR = 0.3, 0.4, 0.5
JUDGES = {
    "ann": {},
    "dan": {},
    "cal": {"self": SELF},
    "fir": {"first": FIRST},
    "fan": {"favours": "bob", "favour": FAVOUR, "named": 0.5},
}
MARTS = (
    "pairwise_position",
    "pairwise_self_bias",
    "pairwise_name_bias",
    "bradley_terry",
)


@pytest.fixture(scope="module")
def marts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    verdicts = biased_verdicts(STRENGTHS, judges=JUDGES, n_questions=30, seed=3)
    run_dir = write_pairwise_run(
        tmp_path_factory.mktemp("arms") / "run", verdicts, scoring(bootstrap_n=50)
    )
    invoke_dbt(
        DbtRequest(
            "build",
            run_dir=run_dir,
            select=" ".join(f"+arena_{name}" for name in MARTS)  # with their unit tests
            + STYLE_TEST_PARENTS,
            unit_tests=True,
        )
    )
    tables = {}
    for name in MARTS:
        table = duckdb.sql(f"select * from '{run_dir / name}.parquet'")
        tables[name] = [dict(zip(table.columns, row, strict=True)) for row in table.fetchall()]
    return tables


def _opponents(player: str) -> list[str]:
    return [other for other in STRENGTHS if other != player]


def test_the_first_position_judge_is_found_with_its_planted_rate(marts):
    rows = {row["judge"]: row for row in marts["pairwise_position"]}
    planted = 0.5 + FIRST / 2
    fir = rows["fir"]
    assert fir["first_win_rate_ci_low"] <= planted <= fir["first_win_rate_ci_high"], fir
    assert fir["first_win_rate_ci_low"] > 0.5
    flips = []
    for player in STRENGTHS:
        for other in _opponents(player):
            first = FIRST + (1 - FIRST) * p_beats(STRENGTHS, player, other)
            second = FIRST + (1 - FIRST) * p_beats(STRENGTHS, other, player)
            flips.append(first * second + (1 - first) * (1 - second))
    assert fir["flip_rate_ci_low"] <= mean(flips) <= fir["flip_rate_ci_high"], fir
    for judge in ("ann", "dan", "cal"):
        assert rows[judge]["first_win_rate_ci_low"] <= 0.5 <= rows[judge]["first_win_rate_ci_high"]


def test_the_self_favouring_judge_is_found_with_its_planted_bias(marts):
    (cal,) = marts["pairwise_self_bias"][1:]
    assert cal["judge"] == "cal"
    planted = SELF * mean(1 - p_beats(STRENGTHS, "cal", other) for other in _opponents("cal"))
    assert cal["self_bias_ci_low"] <= planted <= cal["self_bias_ci_high"], cal
    assert cal["self_bias_ci_low"] > 0


def test_the_brand_favouring_judge_is_found_with_its_planted_bias_for_that_brand(marts):
    rows = {(row["judge"], row["player"]): row for row in marts["pairwise_name_bias"]}
    planted = FAVOUR * mean(1 - p_beats(STRENGTHS, "bob", other) for other in _opponents("bob"))
    bob = rows[("fan", "bob")]
    assert bob["name_bias_ci_low"] <= planted <= bob["name_bias_ci_high"], bob
    assert bob["name_bias_ci_low"] > 0
    assert {judge for judge, _ in rows} == {"fan", "(all judges)"}


def test_the_ranking_leaves_out_self_and_named_verdicts_and_keeps_the_planted_order(marts):
    order = [row["player"] for row in marts["bradley_terry"]]
    assert order == sorted(STRENGTHS, key=STRENGTHS.get, reverse=True)
