"""The metric catalogues (dbt_project/seeds/pd_metrics.csv, arena_metrics.csv) as Python
reads them, the label catalogue built on them, and the metric tables of docs/metrics.md and
docs/arena_metrics.md written from them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from pdbench.column_labels import format_cell, label, label_catalogue
from pdbench.metric_catalogue import load_game_catalogue
from pdbench.pd.metrics import pd_metrics

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _metric_tables():
    spec = importlib.util.spec_from_file_location("metric_tables", DOCS / "metric_tables.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_the_interval_metrics_are_the_columns_the_sql_lists_held():
    # the list macros/pd_stats.sql spelled out before the catalogue, in the catalogue's order
    by_hand = [
        "cooperation_rate", "cooperation_rate_a", "cooperation_rate_b",
        "mutual_cooperation_rate", "mutual_defection_rate",
        "retaliation_rate_a", "retaliation_rate_b", "forgiveness_rate_a", "forgiveness_rate_b",
        "total_payoff_a", "total_payoff_b", "payoff_per_round_a", "payoff_per_round_b",
        "exploitability_payoff_gap_a", "exploitability_payoff_gap_b",
        "cooperation_rate_valid_a", "cooperation_rate_valid_b",
        "fallback_move_share_a", "fallback_move_share_b",
        "p_c_after_cc_a", "p_c_after_cc_b", "p_c_after_cd_a", "p_c_after_cd_b",
        "p_c_after_dc_a", "p_c_after_dc_b", "p_c_after_dd_a", "p_c_after_dd_b",
        "first_defection_round_a", "first_defection_round_b",
        "longest_defection_streak_a", "longest_defection_streak_b", "time_to_collapse",
        "nice_rate_a", "nice_rate_b",
    ]  # fmt: skip
    columns = [c for m in pd_metrics().where(interval=("t", "wilson")) for c in m.columns()]
    assert columns == by_hand


def test_a_side_reads_as_the_agent_and_a_state_in_capitals():
    labels = pd_metrics().labels()
    assert labels["forgiveness_rate_a"] == "A's forgiveness"
    assert labels["p_c_after_cd_b"] == "B's cooperation after CD"
    assert labels["time_to_collapse"] == "collapse at round"
    assert all("_" not in text for text in labels.values())


def test_every_metric_column_has_its_interval_labelled():
    assert label("forgiveness_rate_b_ci_low") == "B's forgiveness, 95% low"
    assert label("forgiveness_rate", per_agent=True) == "forgiveness"
    assert label("cooperation_rate") == "cooperation, both agents"
    # a metric without an interval has no interval columns to label
    assert label_catalogue().get("invalid_attempt_share_a_ci_low") is None


@pytest.mark.parametrize(
    ("column", "value", "shown"),
    [
        ("forgiveness_rate_a", 0.25, "25.0%"),
        ("forgiveness_rate_a", None, "—"),
        ("payoff_per_round_a", 2.5, "2.500"),
        ("n_replicates", 3, "3"),
        ("first_defection_round_a", 4.0, "4"),
        ("first_defection_round_a", 4.5, "4.5"),
        ("is_few_data", True, "yes"),
        ("cost_usd", 0.0125, "$0.0125"),
        ("cost_usd", float("nan"), "—"),
    ],
)
def test_a_cell_reads_in_its_format(column: str, value: object, shown: str):
    assert format_cell(column, value) == shown


def test_the_docs_metric_table_is_the_catalogue():
    module = _metric_tables()
    text = (DOCS / "metrics.md").read_text(encoding="utf-8")
    assert module.rendered(text) == text, "stale: uv run python docs/metric_tables.py"
    assert "| `forgiveness_rate` (`_a`, `_b`) | forgiveness |" in text


def test_the_arena_docs_metric_table_is_the_arena_catalogue():
    module = _metric_tables()
    page = DOCS / "arena_metrics.md"
    text = page.read_text(encoding="utf-8")
    assert module.rendered(text, page) == text, "stale: uv run python docs/metric_tables.py"
    assert (
        "| `top_score_rate` | share of 10s given | share of scored judgements | none "
        "| `judge_stats` |" in text
    )
    assert module.main(["--check"]) == 0


def test_the_arena_catalogue_is_read_like_the_pds():
    arena = load_game_catalogue("arena_metrics.csv")
    assert [m.position for m in arena.metrics] == sorted(m.position for m in arena.metrics)
    assert all(m.condition is None and not m.per_agent for m in arena.metrics)
    assert all(m.marts for m in arena.metrics)
    # a rate is a share shown in percent, and the other way round
    assert all(m.is_rate == (m.format == "percent") for m in arena.metrics)
    # the PD's catalogue keeps its own interval columns (no stem) and its condition rule
    assert all(m.interval_stem is None and m.condition for m in pd_metrics().metrics)
