"""``pdbench import lm-council`` on the Council's rubric sample, with its aggregation: the
absolute scores reach the leaderboard and the judges' table."""

from __future__ import annotations

from pathlib import Path

import duckdb
from pdbench import cli
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "lm_council"
runner = CliRunner()


def test_the_rubric_scores_rank_the_four_models(tmp_path: Path):
    out = tmp_path / "rubric"
    result = runner.invoke(
        cli.app,
        [
            "import",
            "lm-council",
            str(DATA / "rubric_judge_ratings.jsonl"),
            str(DATA / "rubric_completions.jsonl"),
            "--output-dir",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    rows = duckdb.sql(
        f"select player, rank from '{out / 'leaderboard.parquet'}' order by rank, player"
    ).fetchall()
    # every score is 10 but x-ai/grok-3-mini's 9 for one of llama-3.1-8b-instruct's answers;
    # the judge that answered nothing and the prompts' author are listed without a rank
    ranked = [player for player, rank in rows if rank is not None]
    assert len(ranked) == 4
    assert ranked[-1] == "meta-llama/llama-3.1-8b-instruct"
    assert sorted(player for player, rank in rows if rank is None) == [
        "(prompt set)",
        "google/gemini-2.5-flash-preview-05-20",
    ]
    judges = duckdb.sql(f"select judge from '{out / 'judge_stats.parquet'}'").fetchall()
    assert sorted(j for (j,) in judges) == [
        "deepseek/deepseek-r1-0528",
        "google/gemini-2.5-flash-preview-05-20",
        "x-ai/grok-3-mini",
    ]
