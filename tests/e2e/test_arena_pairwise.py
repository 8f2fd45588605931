"""The pairwise demo (``configs/arena_pairwise.yaml``, unchanged) through ``pdbench run``,
once per module: the marts recover what the mock judges were planted with.

The truth is read from the run's manifest (``scoring.players``), never written here: the
answer skills order the players, cirrus is planted with a first-position bonus, dynamo with a
bonus for its own answers and borealis with a bonus for dynamo's answers shown by name.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles, PairwiseJudgmentRecord
from pdbench.column_labels import format_cell
from pdbench.storage.schema import RunFiles
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from tests.conftest import CONFIGS
from tests.servers.local import SAFETY_NET_S


@dataclass(frozen=True)
class PairwiseRun:
    config: Path
    run_dir: Path
    stdout: str
    players: list[dict]
    """The planted traits, from the manifest."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> PairwiseRun:
    folder = tmp_path_factory.mktemp("arena_pairwise")
    shutil.copytree(CONFIGS, folder / "configs")
    config, run_dir = folder / "configs/arena_pairwise.yaml", folder / "run"
    result = CliRunner().invoke(cli.app, ["run", str(config), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed"
    return PairwiseRun(config, run_dir, result.stdout, manifest["scoring"]["players"])


def _jsonl(run: PairwiseRun, name: str) -> list[dict]:
    return [json.loads(line) for line in (run.run_dir / name).read_text().splitlines()]


def _mart(run: PairwiseRun, name: str, where: str = "true") -> dict[str, dict]:
    """Rows of ``name`` by judge (the position and self marts)."""
    relation = duckdb.sql(f"select * from '{run.run_dir}/{name}.parquet' where {where}")
    rows = [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]
    return {row["judge"]: row for row in rows}


def _planted(run: PairwiseRun, trait: str) -> str:
    """The one judge planted with ``trait``."""
    (name,) = [p["name"] for p in run.players if p.get(trait)]
    return name


def test_the_dry_run_counts_the_pairwise_calls_made(run: PairwiseRun):
    result = CliRunner().invoke(cli.app, ["run", str(run.config), "--dry-run"])
    assert result.exit_code == 0, result.stderr
    made = [
        c for c in _jsonl(run, RunFiles.CALLS) if c["phase"] == "pairwise" and c["attempt"] == 1
    ]
    # 4 players x 3 questions; 6 pairs a question, each judged by all 4 (the self arm),
    # in 2 orders, blind and named: 12 * 6 * 4 * 2 * 2
    assert len(made) == len(_jsonl(run, ArenaFiles.PAIRWISE_JUDGMENTS)) == 1152
    assert "  pairwise: exactly 1152\n" in result.stdout


def test_verdicts_are_written_through_the_record_the_import_writes(run: PairwiseRun):
    answers = {a["answer_id"]: a for a in _jsonl(run, ArenaFiles.ANSWERS)}
    lines = _jsonl(run, ArenaFiles.PAIRWISE_JUDGMENTS)
    for line in lines:
        assert set(line) == set(PairwiseJudgmentRecord.model_fields)
        PairwiseJudgmentRecord.model_validate(line)
        first, second = answers[line["first_answer_id"]], answers[line["second_answer_id"]]
        assert (first["answerer"], second["answerer"]) == (
            line["first_player"],
            line["second_player"],
        )
        assert first["question_id"] == second["question_id"] == line["question_id"]
        assert line["is_valid"] and line["verdict"] == line["raw_reply"]
        named = "written by" in line["prompt"]
        assert named == line["is_named"]
        assert (line["first_player"] in line["prompt"]) == named
    # every pair asked in both orders by the same judge, under one pair id
    orders = {(v["pair_id"], v["judge"], v["is_named"], v["order_index"]) for v in lines}
    assert len(orders) == len(lines)
    assert {key[:3] for key in orders if key[3] == 1} == {key[:3] for key in orders if key[3] == 0}


def test_the_bradley_terry_order_is_the_planted_skill_order(run: PairwiseRun):
    truth = [p["name"] for p in sorted(run.players, key=lambda p: -p["answer_skill"])]
    ranked = duckdb.sql(
        f"select player from '{run.run_dir}/bradley_terry.parquet' where player is not null "
        "order by rank"
    ).fetchall()
    assert [player for (player,) in ranked] == truth
    agreement = duckdb.sql(
        f"select n_players, spearman from '{run.run_dir}/score_agreement.parquet'"
    ).fetchall()
    assert agreement == [(4, 1.0)]


def test_the_leaderboard_shows_bradley_terry_beside_the_absolute_score(run: PairwiseRun):
    lines = run.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Bradley-Terry ranking"))
    assert lines[start + 1].split()[-2:] == ["absolute", "score"]
    scores = dict(
        duckdb.sql(
            f"select player, score from '{run.run_dir}/leaderboard.parquet' "
            "where player is not null"
        ).fetchall()
    )
    for line in lines[start + 2 : start + 6]:
        cells = line.split()
        assert cells[-1] == f"{scores[cells[1]]:.3f}"
    assert lines[start + 6].startswith("agreement of the absolute and Bradley-Terry rankings")


def test_the_planted_position_bias_is_found_and_no_other(run: PairwiseRun):
    rows = _mart(run, "pairwise_position", "not is_all_judges")
    biased = _planted(run, "first_bonus")
    assert rows[biased]["first_win_rate_ci_low"] > 0.5
    assert rows[biased]["flip_rate_ci_low"] > 0
    for judge, row in rows.items():
        if judge != biased:
            assert row["first_win_rate_ci_low"] <= 0.5 <= row["first_win_rate_ci_high"], judge
        assert row["n_swapped_pairs"] > 0


def test_the_planted_self_bias_is_found(run: PairwiseRun):
    rows = _mart(run, "pairwise_self_bias", "not is_all_judges")
    assert rows[_planted(run, "self_bonus")]["self_bias_ci_low"] > 0
    assert set(rows) == {p["name"] for p in run.players}  # the self arm: every judge


def test_the_planted_name_bias_is_found(run: PairwiseRun):
    (judge,) = [p for p in run.players if p.get("name_bonus")]
    row = duckdb.sql(
        f"select name_bias, name_bias_ci_low from '{run.run_dir}/pairwise_name_bias.parquet' "
        f"where judge = '{judge['name']}' and player = '{judge['favours']}'"
    ).fetchall()
    assert row[0][1] > 0


def _app(run: PairwiseRun, monkeypatch: pytest.MonkeyPatch, page: str | None = None) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run.run_dir)])
    at = AppTest.from_file(str(Path(cli.STREAMLIT_APP)), default_timeout=SAFETY_NET_S)
    at.run()
    if page is not None:
        at.radio(key="arena_page").set_value(page)
        at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _table_with(at: AppTest, column: str) -> pd.DataFrame:
    (table,) = [frame.value for frame in at.dataframe if column in frame.value.columns]
    return table


def test_the_viewer_leaderboard_shows_bradley_terry_beside_the_score(
    run: PairwiseRun, monkeypatch: pytest.MonkeyPatch
):
    at = _app(run, monkeypatch, page="Leaderboard")  # the viewer opens on the Overview
    table = _table_with(at, "elo")
    strengths = duckdb.sql(
        f"select b.player, b.elo, l.score from '{run.run_dir}/bradley_terry.parquet' b "
        f"join '{run.run_dir}/leaderboard.parquet' l using (player) order by b.rank"
    ).fetchall()
    assert table["player"].tolist() == [player for player, _, _ in strengths]
    assert table["elo"].tolist() == pytest.approx([elo for _, elo, _ in strengths])
    assert table["score"].tolist() == pytest.approx([score for _, _, score in strengths])
    assert any("Spearman's rho 1.000" in caption.value for caption in at.caption)


def test_the_pairwise_page_shows_the_ranking_and_the_three_arms(
    run: PairwiseRun, monkeypatch: pytest.MonkeyPatch
):
    at = _app(run, monkeypatch, page="Pairwise")
    ranking = _table_with(at, "win_rate_vs_baseline")
    assert ranking["elo_ci_low"].notna().all() and ranking["rank_ci_high"].notna().all()
    position = _table_with(at, "first_win_rate")
    assert position["judge"].iloc[0] == "(all judges)"
    biased = _planted(run, "self_bonus")
    self_bias = _table_with(at, "self_bias").set_index("judge")
    mart = _mart(run, "pairwise_self_bias")[biased]
    # the mart's share, written in signed percentage points as the label catalogue says
    shown = self_bias.loc[biased, "self_bias"]
    assert shown == pytest.approx(mart["self_bias"])
    assert format_cell("self_bias", shown) == f"{100 * mart['self_bias']:+.1f} pp"
    assert "name_bias" in _table_with(at, "name_bias").columns
