"""The label catalogue: every label written once, in a dbt seed (the games' metric catalogues
for their metrics, dbt_project/seeds/column_labels.csv for every other column), read by
Python."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from pdbench.arena.pairwise_summary import elo_bound_text
from pdbench.column_labels import (
    LABELS_FILE,
    format_cell,
    label,
    label_catalogue,
    load_label_catalogue,
)
from pdbench.metric_catalogue import all_catalogues, load_catalogue, load_game_catalogue

ROOT = Path(__file__).resolve().parents[2]
SEEDS = ROOT / "dbt_project" / "seeds"


def test_the_labels_live_in_seeds_only():
    assert not (ROOT / "engine" / "pdbench" / "column_labels.yml").exists()
    assert LABELS_FILE == SEEDS / "column_labels.csv"
    assert [c.source for c in all_catalogues()] == ["arena_metrics.csv", "pd_metrics.csv"]


def test_an_arena_metric_reads_from_the_arena_catalogue():
    arena = load_game_catalogue("arena_metrics.csv")
    metric = arena.metric_of("top_score_rate")
    assert (metric.label, metric.format, metric.is_rate) == ("share of 10s given", "percent", True)
    assert metric.marts == ("judge_stats",)
    assert label("top_score_rate") == "share of 10s given"
    assert format_cell("top_score_rate", 0.125) == "12.5%"
    assert format_cell("top_score_rate", None) == "—"


def test_an_arena_interval_is_labelled_from_its_metric():
    # model_score's interval is model_ci_low / model_ci_high (its interval_stem)
    assert label("model_ci_low") == "model score, 95% low"
    assert label("win_rate_ci_high") == "win rate vs baseline, 95% high"
    assert label("first_win_rate_ci_low") == "first win rate, 95% low"
    assert format_cell("flip_rate_ci_high", 0.5) == "50.0%"
    assert format_cell("arm_score_difference_ci_low", -0.125) == "-0.12"


def test_the_other_columns_and_the_hidden_ones_come_from_the_labels_seed():
    assert label("n_replicates") == "replicates"
    assert format_cell("n_replicates", 3) == "3"
    assert label("judge") == "judge"
    assert {"run_id", "match_id", "answer_id", "schema_version"} <= set(
        label_catalogue().never_shown
    )
    assert label_catalogue().get("run_id") is None


def test_no_column_has_two_labels():
    catalogue = label_catalogue()
    with LABELS_FILE.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    names = [row["column_name"] for row in rows]
    assert len(names) == len(set(names))
    metric_columns = [c for cat in all_catalogues() for m in cat.metrics for c in m.columns()]
    assert not set(names) & set(metric_columns)
    assert len(catalogue.columns) + len(catalogue.never_shown) >= len(names) + len(
        set(metric_columns)
    )


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_column_labelled_twice_is_refused_naming_it(tmp_path: Path):
    labels = _write(
        tmp_path / "column_labels.csv",
        "column_name,label,format,decimals,is_shown\n"
        "judge,judge,text,,true\n"
        "share_of_tens,tens,percent,,true\n",
    )
    metrics = _write(
        tmp_path / "toy_metrics.csv",
        "position,metric,label,unit,format,decimals,is_rate,interval,interval_stem,marts,"
        "description\n"
        "1,share_of_tens,share of 10s,share,percent,3,true,none,,judge_stats,Tens.\n",
    )
    with pytest.raises(ValueError, match=r"share_of_tens: labelled twice.*toy_metrics\.csv"):
        load_label_catalogue(labels, [load_catalogue(metrics)])


def test_a_hidden_column_may_not_be_labelled_by_a_catalogue(tmp_path: Path):
    labels = _write(
        tmp_path / "column_labels.csv",
        "column_name,label,format,decimals,is_shown\nshare_of_tens,,text,,false\n",
    )
    metrics = _write(
        tmp_path / "toy_metrics.csv",
        "position,metric,label,unit,format,decimals,is_rate,interval,interval_stem,marts,"
        "description\n"
        "1,share_of_tens,share of 10s,share,percent,3,true,t,tens,judge_stats,Tens.\n",
    )
    with pytest.raises(ValueError, match="share_of_tens: labelled twice"):
        load_label_catalogue(labels, [load_catalogue(metrics)])
    # its interval columns take the stem
    found = load_label_catalogue(
        _write(tmp_path / "none.csv", "column_name,label,format,decimals,is_shown\n"),
        [load_catalogue(metrics)],
    )
    assert found.columns["tens_ci_low"].label == "share of 10s, 95% low"
    assert "share_of_tens_ci_low" not in found.columns


def test_a_difference_of_shares_reads_in_signed_percentage_points():
    # self_bias 0.125 - 0.5 = -0.375 of the verdicts: -37.5 percentage points
    assert format_cell("self_bias", 0.125 - 0.5) == "-37.5 pp"
    assert format_cell("name_bias_ci_high", 0.0625) == "+6.2 pp"
    assert format_cell("self_bias", -0.0004) == "0.0 pp"
    assert format_cell("self_bias", None) == "—"


def test_elo_points_are_whole_wherever_they_are_written():
    assert format_cell("elo", 1043.6) == "1044"
    assert format_cell("elo_ci_low", 987.2) == "987"
    assert elo_bound_text(1487.6, None) == "Elo above 1488"
    assert elo_bound_text(None, 511.4) == "Elo below 511"
    assert elo_bound_text(900.0, 1100.0) is None


def test_a_number_that_rounds_to_zero_has_no_minus_sign():
    assert format_cell("joint_effect", -1e-13) == "0.000"
    assert format_cell("joint_effect", -0.0004) == "0.000"
    assert format_cell("joint_effect", -0.0006) == "-0.001"
