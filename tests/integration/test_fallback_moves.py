"""A mock agent whose replies are mostly invalid: its cooperation measures reply validity,
and the marts and the summary say so. Expected values come from ``rounds.jsonl``."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl

from tests.conftest import CONFIGS, write_experiment


def _llm(invalid_rate: float) -> dict:
    """An LLM agent the mock plays as ALLC: C whenever its reply is valid, the fallback D
    otherwise."""
    return {
        "ref": "agents/llm_default.yaml",
        "overrides": {
            "name": "allc-llm",
            "mock": {"strategy": "ALLC", "invalid_rate": invalid_rate},
        },
    }


TFT = {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}}


@dataclass(frozen=True)
class Played:
    run_dir: Path
    summary: AggregateSummary


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    folder = tmp_path_factory.mktemp("fallback_moves")
    shutil.copytree(CONFIGS, folder / "configs")
    config = write_experiment(
        folder / "configs",
        replicates=3,
        conditions=[
            {"name": "mostly_invalid", "agent_a": _llm(0.8), "agent_b": TFT},
            {"name": "valid", "agent_a": _llm(0.0), "agent_b": TFT},
        ],
        comparisons=[["mostly_invalid", "valid"]],
    )
    result = run_experiment(load_config(config), output_dir=folder / "run")
    assert result.manifest.status == "completed"
    return Played(run_dir=folder / "run", summary=aggregate_run(folder / "run"))


def _fallbacks(run_dir: Path) -> dict[str, tuple[int, int, int]]:
    """Per condition, from rounds.jsonl: (fallback moves of A, its moves, its valid C moves)."""
    counts: dict[str, list[int]] = {}
    for line in read_jsonl(run_dir / PDFiles.ROUNDS):
        count = counts.setdefault(line["condition"], [0, 0, 0])
        count[0] += not line["agent_a_valid"]
        count[1] += 1
        count[2] += line["agent_a_valid"] and line["agent_a_action"] == "C"
    return {condition: (a, b, c) for condition, (a, b, c) in counts.items()}


def _agent_a(run_dir: Path, condition: str) -> dict:
    cursor = duckdb.execute(
        "select * from read_parquet(?) where level = 'condition' and condition = ? "
        "and side = 'agent_a'",
        [str(run_dir / PDMart.AGENT_METRICS), condition],
    )
    names = [column[0] for column in cursor.description]
    return dict(zip(names, cursor.fetchone(), strict=True))


def test_the_twin_counts_only_moves_from_valid_replies(played: Played):
    n_fallback, n_moves, n_valid_c = _fallbacks(played.run_dir)["mostly_invalid"]
    assert n_fallback / n_moves > 0.5  # mostly invalid, as planted
    row = _agent_a(played.run_dir, "mostly_invalid")
    assert (row["n_fallback_moves"], row["n_rounds"]) == (n_fallback, n_moves)
    # ALLC cooperates in every valid move; the fallback D pulls plain cooperation down to
    # the share of valid moves
    assert row["cooperation_rate_valid"] == 1.0
    assert row["cooperation_rate"] == pytest.approx(n_valid_c / n_moves)  # 12 rounds each
    assert row["fallback_move_share"] == pytest.approx(n_fallback / n_moves)
    assert row["invalid_attempt_share"] > row["fallback_move_share"]  # retries were invalid too
    valid = _agent_a(played.run_dir, "valid")
    assert (valid["cooperation_rate"], valid["cooperation_rate_valid"]) == (1.0, 1.0)
    assert (valid["fallback_move_share"], valid["n_fallback_moves"]) == (0.0, 0)


def test_the_comparison_of_the_twins_finds_no_difference_in_behaviour(played: Played):
    rows = dict(
        duckdb.execute(
            "select metric, mean_difference from read_parquet(?) where metric in "
            "('cooperation_rate_a', 'cooperation_rate_valid_a', 'fallback_move_share_a')",
            [str(played.run_dir / PDMart.COMPARISONS)],
        ).fetchall()
    )
    n_fallback, n_moves, _ = _fallbacks(played.run_dir)["mostly_invalid"]
    assert rows["cooperation_rate_a"] == pytest.approx(-n_fallback / n_moves)
    assert rows["fallback_move_share_a"] == pytest.approx(n_fallback / n_moves)
    assert rows["cooperation_rate_valid_a"] == 0.0


def test_the_summary_shows_the_fallback_moves_and_warns(played: Played):
    n_fallback, n_moves, _ = _fallbacks(played.run_dir)["mostly_invalid"]
    lines = played.summary.text.splitlines()
    (row,) = [line for line in lines if line.startswith("mostly_invalid ")]
    assert f"{n_fallback}/{n_moves} ({n_fallback / n_moves:.0%}); -" in row
    warnings = [line for line in lines if line.startswith("warning: ")]
    assert warnings == [
        f"warning: {n_fallback} of {n_moves} moves of allc-llm (agent_a in mostly_invalid) "
        "were fallback moves after invalid replies; cooperation here measures reply validity, "
        "not behaviour (cooperation among its valid moves: 1.000)",
        f"warning: mostly_invalid vs valid: agent_a fell back in {n_fallback}/{n_moves} "
        f"({n_fallback / n_moves:.0%}) vs 0/{n_moves} (0%) of its moves; a difference in "
        "cooperation between them measures reply validity as much as behaviour (compare "
        "cooperation_rate_valid)",
    ]
