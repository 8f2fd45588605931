"""``pdbench import lm-council`` on the Council's rubric files: every rating of another
model's answer becomes an absolute score, the mean of its criteria on 0..10; a file of
verdicts and a file of ratings make one run holding both."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.imports.lm_council_rubric import rescaled
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "lm_council"
RATINGS = DATA / "rubric_judge_ratings.jsonl"
COMPLETIONS = DATA / "rubric_completions.jsonl"
runner = CliRunner()


def _import(*args: str):
    return runner.invoke(cli.app, ["import", "lm-council", *args, "--no-aggregate"])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(
    ("points", "expected"), [([1, 1], 0.0), ([5, 5], 10.0), ([4, 5], 8.75), ([2, 3, 4], 5.0)]
)
def test_the_criteria_mean_goes_from_the_likert_scale_to_0_10(points, expected):
    assert rescaled(points) == expected


def test_rubric_ratings_become_scores_of_other_models_answers(tmp_path: Path):
    out = tmp_path / "rubric"
    result = _import(str(RATINGS), str(COMPLETIONS), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    # 36 ratings, 6 by a judge of its own answer
    assert "imported 30 rubric scores of 3 judges on answers of 4 models" in result.output
    assert "(6 of a judge's own answer left out)" in result.output
    judgments = _lines(out / ArenaFiles.JUDGMENTS)
    # 35 ratings are Coherence 5, Relevance 5 (10); x-ai/grok-3-mini rated
    # llama-3.1-8b-instruct's name 4 and 5: (4.5 - 1) / 4 * 10 = 8.75, scored 9
    assert Counter(j["score"] for j in judgments) == {10: 29, 9: 1}
    (nine,) = [j for j in judgments if j["score"] == 9]
    assert nine["judge"] == "x-ai/grok-3-mini"
    assert json.loads(nine["raw_reply"])["score_0_10"] == 8.75
    answers = _lines(out / ArenaFiles.ANSWERS)
    assert len(answers) == 12  # 3 prompts x 4 models
    texts = {(a["answerer"], a["text"]) for a in answers}
    assert ("google/gemini-2.5-flash-lite-preview-06-17", "Goodbye!") in texts
    assert len(_lines(out / ArenaFiles.QUESTIONS)) == 3


def test_verdicts_and_ratings_make_one_run(tmp_path: Path):
    out = tmp_path / "both"
    result = _import(str(DATA / "lmc_ei.jsonl"), str(RATINGS), "--output-dir", str(out))
    assert result.exit_code == 0, result.output
    assert len(_lines(out / ArenaFiles.PAIRWISE_JUDGMENTS)) == 1000
    assert len(_lines(out / ArenaFiles.JUDGMENTS)) == 30


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"Coherence": 6}, ":2: column Coherence: 6 is outside the Likert scale 1..5"),
        ({"judge_model": None}, ":2: column judge_model: missing or not a text"),
        ({"Coherence": "high", "Relevance": "high"}, ":2: column model_being_judged: no criterion"),
    ],
)
def test_a_bad_rating_names_the_file_line_and_field_and_nothing_is_written(
    tmp_path: Path, change: dict, expected: str
):
    first, second = RATINGS.read_text().splitlines()[:2]
    source = tmp_path / "ratings.jsonl"
    source.write_text(first + "\n" + json.dumps(json.loads(second) | change) + "\n")
    result = _import(str(source), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert f"{source}{expected}" in " ".join(result.output.split())
    assert "Traceback" not in result.output
    assert [p.name for p in tmp_path.iterdir()] == ["ratings.jsonl"]
