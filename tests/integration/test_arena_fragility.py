"""How few verdicts hold a Bradley-Terry place: on a small field ``n_to_flip_next`` of
``bradley_terry.parquet`` equals the fewest verdicts whose removal swaps a player with the
next one down, found here by trying every removal, and a player who never lost has none."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt

from tests.integration.pairwise_runs import (
    STYLE_TEST_PARENTS,
    scoring,
    verdict,
    write_pairwise_run,
)

# (winner, loser): how many blind verdicts say so; every player beat and lost to every other
RECORD = {
    ("ann", "ben"): 4,
    ("ben", "ann"): 2,
    ("ann", "cyd"): 2,
    ("cyd", "ann"): 1,
    ("ben", "cyd"): 3,
    ("cyd", "ben"): 2,
}


def _fit(record: Counter[tuple[str, str]]) -> dict[str, float]:
    """Bradley-Terry strengths by MM steps, run long enough to settle (a player who never
    won goes to 0)."""
    players = sorted({p for pair in RECORD for p in pair})
    strength = dict.fromkeys(players, 1.0)
    for _ in range(2000):
        new = {}
        for player in players:
            wins = sum(n for (winner, _), n in record.items() if winner == player)
            games = sum(
                n / (strength[a] + strength[b]) for (a, b), n in record.items() if player in (a, b)
            )
            new[player] = wins / games if games else strength[player]
        strength = new
    return strength


def _fewest_to_swap(upper: str, lower: str) -> int | None:
    """Every removal (how many verdicts of each kind), smallest first: the first that puts
    ``lower`` above ``upper``."""
    kinds = list(RECORD)
    best = None
    for removed in itertools.product(*(range(RECORD[kind] + 1) for kind in kinds)):
        kept = Counter({kind: RECORD[kind] - r for kind, r in zip(kinds, removed, strict=True)})
        fit = _fit(+kept)
        if fit[lower] > fit[upper] * (1 + 1e-9) and (best is None or sum(removed) < best):
            best = sum(removed)
    return best


def _verdicts(record: dict[tuple[str, str], int]) -> list:
    lines = []
    for (winner, loser), n in record.items():
        for index in range(n):
            lines.append(
                verdict(
                    question_id=f"q{index}",
                    judge="jud",
                    first=winner,
                    second=loser,
                    choice="A>B",
                    order_index=0 if winner < loser else 1,
                )
            )
    return lines


def _build(run_dir: Path) -> dict[str, dict]:
    invoke_dbt(
        DbtRequest("build", run_dir=run_dir, select="+arena_bradley_terry" + STYLE_TEST_PARENTS)
    )
    table = duckdb.sql(f"select * from '{run_dir / 'bradley_terry.parquet'}' order by rank")
    return {row[0]: dict(zip(table.columns, row, strict=True)) for row in table.fetchall()}


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    run_dir = tmp_path_factory.mktemp("fragility") / "run"
    return _build(write_pairwise_run(run_dir, _verdicts(RECORD), scoring(bootstrap_n=200)))


def test_the_flip_counts_are_the_fewest_verdicts_that_swap_neighbours(rows: dict[str, dict]):
    assert list(rows) == ["ann", "ben", "cyd"]
    assert rows["ann"]["n_to_flip_next"] == _fewest_to_swap("ann", "ben") == 3
    assert rows["ben"]["n_to_flip_next"] == _fewest_to_swap("ben", "cyd") == 2
    assert rows["cyd"]["n_to_flip_next"] is None  # the last player has no one below


def test_a_player_who_never_lost_has_no_flip_count(tmp_path: Path):
    record = {("ann", "ben"): 3, ("ann", "cyd"): 2, ("ben", "cyd"): 2, ("cyd", "ben"): 1}
    rows = _build(write_pairwise_run(tmp_path / "run", _verdicts(record), scoring(bootstrap_n=200)))
    assert rows["ann"]["is_separated"] is True
    assert rows["ann"]["n_to_flip_next"] is None
    assert rows["ann"]["elo"] is None and rows["ann"]["rank"] == 1
    assert rows["cyd"]["n_to_flip_next"] is None
