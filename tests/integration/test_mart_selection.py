"""`pdbench aggregate` builds only the models a run has input for; the marts it leaves out are
written empty, with the columns a build gives them, and the viewer reads them as no rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.pd.content import absent_content
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart
from pdbench.ui import run_reader

from tests.conftest import CONFIGS, write_experiment

EVOLUTION_MODELS = {
    "int_pd_moran_pairs",
    "tournament_ecosystem",
    "tournament_fixation",
    "tournament_moran_simulations",
}
STANDINGS_MODELS = {"tournament_match_scores", "tournament_standings", "tournament_payoff_matrix"}
CALL_MODELS = {"stg_calls", "pd_calls_summary", "pd_parse_rules"}
COMPARISON_MODELS = {"pd_comparisons", "int_pd_paired_differences", "int_pd_sign_flips"}
STATEMENT_MODELS = {"stg_pd_statements", "int_pd_stated_vs_played", "pd_stated_vs_played"}
POLICIES = ["TFT", "ALLD", "GRIM"]


def _policy_condition(a: str, b: str) -> dict:
    return {
        "name": f"{a.lower()}_vs_{b.lower()}",
        "agent_a": {"ref": "agents/policies.yaml", "overrides": {"policy": a}},
        "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": b}},
    }


def _played(folder: Path, **fields: object) -> Path:
    shutil.copytree(CONFIGS, folder, dirs_exist_ok=True)
    config = write_experiment(folder, name=f"{fields['run_id']}.yaml", **fields)
    result = run_experiment(load_config(config), output_dir=folder / str(fields["run_id"]))
    assert result.manifest.status == "completed"
    return result.run_dir


@pytest.fixture(scope="module")
def policies_only(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    """Two policy conditions, one replicate, no round robin, no fingerprint: no LLM call."""
    folder = tmp_path_factory.mktemp("policies_only")
    run_dir = _played(
        folder,
        run_id="policies_only",
        replicates=1,
        conditions=[_policy_condition("TFT", "ALLD"), _policy_condition("GRIM", "TFT")],
    )
    return aggregate_run(run_dir)


@pytest.fixture(scope="module")
def round_robin(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    """A policy round robin of three, two replicates: tournament and comparisons, no call."""
    folder = tmp_path_factory.mktemp("round_robin")
    run_dir = _played(
        folder,
        run_id="round_robin",
        replicates=2,
        conditions=[],
        round_robin={"agents": POLICIES, "self_play": True},
    )
    return aggregate_run(run_dir)


def test_a_policies_only_run_of_one_replicate_builds_no_evolution_call_or_comparison_model(
    policies_only: AggregateSummary,
) -> None:
    assert absent_content(policies_only.run_dir) == (
        "pd_round_robin",
        "pd_fingerprint",
        "pd_comparisons",
        "pd_calls",
        "pd_statements",
    )
    built = set(policies_only.models)
    assert not built & (
        EVOLUTION_MODELS | CALL_MODELS | COMPARISON_MODELS | STATEMENT_MODELS | {"pd_fingerprints"}
    )
    assert {"pd_aggregates", "pd_agent_metrics", "pd_match_list", "pd_strategy_fit"} <= built
    assert built >= STANDINGS_MODELS  # standings are shown for any run


def test_a_round_robin_of_two_replicates_builds_its_dynamics_and_comparisons(
    round_robin: AggregateSummary,
) -> None:
    assert absent_content(round_robin.run_dir) == ("pd_fingerprint", "pd_calls", "pd_statements")
    built = set(round_robin.models)
    assert built >= EVOLUTION_MODELS | COMPARISON_MODELS
    assert not built & (CALL_MODELS | STATEMENT_MODELS | {"pd_fingerprints"})
    ecosystem = run_reader.mart(round_robin.run_dir, PDMart.TOURNAMENT_ECOSYSTEM)
    assert set(ecosystem["agent"]) == set(POLICIES)


def test_every_mart_is_there_and_the_left_out_ones_hold_no_rows(
    policies_only: AggregateSummary, round_robin: AggregateSummary
) -> None:
    left_out = {
        PDMart.TOURNAMENT_ECOSYSTEM,
        PDMart.TOURNAMENT_MORAN_SIMULATIONS,
        PDMart.TOURNAMENT_FIXATION,
        PDMart.FINGERPRINTS,
        PDMart.COMPARISONS,
        PDMart.CALLS_SUMMARY,
        PDMart.PARSE_RULES,
    }
    assert set(policies_only.tables) == {str(mart) for mart in PDMart}
    for mart in left_out:
        assert policies_only.tables[mart] == 0, mart
    assert policies_only.tables[PDMart.AGGREGATES] == 4  # 2 conditions x (1 replicate + mean)


def test_a_left_out_mart_has_the_columns_a_build_gives_it(
    policies_only: AggregateSummary, round_robin: AggregateSummary
) -> None:
    for mart in (PDMart.TOURNAMENT_FIXATION, PDMart.COMPARISONS, PDMart.TOURNAMENT_ECOSYSTEM):
        built = _columns(round_robin.run_dir / mart)
        assert _columns(policies_only.run_dir / mart) == built, mart


def test_the_viewer_reads_a_left_out_mart_as_no_rows_with_its_columns(
    policies_only: AggregateSummary,
) -> None:
    calls = run_reader.mart(policies_only.run_dir, PDMart.CALLS_SUMMARY)
    assert calls.empty
    assert calls[calls["level"] == "run"].empty
    fixation = run_reader.mart(policies_only.run_dir, PDMart.TOURNAMENT_FIXATION)
    assert fixation.empty
    assert {"mutant", "resident", "population_size"} <= set(fixation.columns)


def _columns(path: Path) -> list[tuple[str, str]]:
    return [
        (name, kind) for name, kind, *_ in duckdb.sql(f"describe select * from '{path}'").fetchall()
    ]


def test_with_unit_tests_the_marts_a_run_has_no_input_for_are_empty_too(
    policies_only: AggregateSummary, tmp_path: Path
) -> None:
    """``aggregate --unit-tests`` builds every model, so that every unit test runs; the marts
    of the models the run has no input for must still come out empty, as without the flag (a
    model with no input would leave a row of NULLs, or rows made of the manifest alone)."""
    run_dir = shutil.copytree(policies_only.run_dir, tmp_path / "run")
    summary = aggregate_run(run_dir, unit_tests=True)
    assert summary.n_unit_tests_passed > 0
    assert set(summary.models) >= CALL_MODELS | COMPARISON_MODELS  # every model was built
    assert summary.tables == policies_only.tables
    for mart in (PDMart.CALLS_SUMMARY, PDMart.COMPARISONS, PDMart.TOURNAMENT_FIXATION):
        assert _columns(run_dir / mart) == _columns(policies_only.run_dir / mart), mart
