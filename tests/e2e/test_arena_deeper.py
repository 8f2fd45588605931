"""A small tournament through ``pdbench run`` with the dbt build, once per module, whose mock
players carry the planted traits of the deeper scoring: a player whose replies are mostly
invalid (the answers of the one reliable player are judged only by them, so its score rests
on too few valid judgements to be ranked)."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena
from tests.e2e.played import play_arena

MIN_JUDGMENTS = 5


def _player(name: str, **mock: object) -> dict:
    return {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": mock}}


PLAYERS = [
    _player("solid", answer_skill=0.8),
    # nine replies in ten unusable and no re-ask: they write no questions and their
    # judgements are mostly invalid; solid's 10 answers get about 2 valid judgements, theirs
    # about 11 each (all of solid's, a tenth of the other's)
    _player("flaky_a", answer_skill=0.5, invalid_rate=0.9),
    _player("flaky_b", answer_skill=0.5, invalid_rate=0.9),
]


@dataclass(frozen=True)
class Run:
    run_dir: Path
    stdout: str
    manifest: dict


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    played = play_arena(
        tmp_path_factory.mktemp("arena_deeper"),
        players=PLAYERS,
        questions_per_player=10,
        max_retries=0,
        min_judgments=MIN_JUDGMENTS,
    )
    run_dir = played.run_dir
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    return Run(run_dir=run_dir, stdout=played.stdout, manifest=manifest)


def _rows(run: Run, sql: str) -> list[tuple]:
    return duckdb.sql(sql.format(run=run.run_dir)).fetchall()


def test_min_judgments_is_recorded_in_the_manifest(run: Run):
    assert run.manifest["scoring"]["min_judgments"] == MIN_JUDGMENTS


def test_the_mostly_invalid_player_has_insufficient_data_and_no_rank(run: Run):
    rows = _rows(
        run,
        "select player, status, has_enough_data, rank, ci_low, ci_high, rank_ci_low, "
        "n_judgments, min_judgments from '{run}/leaderboard.parquet' "
        "where player is not null order by player",
    )
    by_player = {row[0]: row[1:] for row in rows}
    status, enough, rank, low, high, rank_low, n_judgments, minimum = by_player["solid"]
    assert (status, enough, rank, low, high, rank_low) == (
        "insufficient data", False, None, None, None, None
    )  # fmt: skip
    assert isinstance(n_judgments, int) and n_judgments < MIN_JUDGMENTS
    assert minimum == MIN_JUDGMENTS
    # the others rest on enough judgements and take ranks 1 and 2 between them
    others = [by_player["flaky_a"], by_player["flaky_b"]]
    assert [row[:2] for row in others] == [("ranked", True)] * 2
    assert sorted(row[2] for row in others) in ([1, 2], [1, 1])
    assert all(row[6] >= MIN_JUDGMENTS and row[3] is not None for row in others)


def test_aggregate_prints_insufficient_data_instead_of_an_interval(run: Run):
    (n_judgments,) = _rows(
        run, "select n_judgments from '{run}/leaderboard.parquet' where player = 'solid'"
    )[0]
    # the leaderboard's row of solid (the overview above it names players in sentences)
    line = next(line for line in run.stdout.splitlines() if line.split()[1:2] == ["solid"])
    assert line.split()[0] == "-"
    assert f"insufficient data ({n_judgments} of {MIN_JUDGMENTS} judgements)" in line


# identity leaks ------------------------------------------------------------------------------

SELF_IDENTIFIES = 0.5
LEAK_PLAYERS = [
    _player("atlas", answer_skill=0.8, self_identifies=SELF_IDENTIFIES),
    _player("borealis", answer_skill=0.6),
    _player("cirrus", answer_skill=0.4),
    _player("dynamo", answer_skill=0.3),
]
NAMES = ("atlas", "borealis", "cirrus", "dynamo", "mock-arena")
N_ANSWERS = 40  # 4 players x 10 questions, each answered by every player


@pytest.fixture(scope="module", params=["flag", "scrub", "void"])
def leak_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp(f"arena_leaks_{request.param}")
    shutil.copytree(CONFIGS, folder / "configs")
    path = write_arena(
        folder / "configs",
        players=LEAK_PLAYERS,
        questions_per_player=10,
        identity_leaks=request.param,
        bootstrap={"n": 20},
        anomaly={"permutations": 20},
    )
    run_dir = folder / "run"
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    return Run(run_dir=run_dir, stdout=result.stdout, manifest=manifest)


def _jsonl(run: Run, name: str) -> list[dict]:
    return [json.loads(line) for line in (run.run_dir / name).read_text().splitlines()]


def test_the_planted_self_identifier_is_recovered_by_the_leak_mart(leak_run: Run):
    rows = _rows(
        leak_run,
        "select player, n_answers, answer_leak_rate, question_leak_rate, identity_leaks "
        "from '{run}/identity_leaks.parquet' where player is not null order by player",
    )
    mode = leak_run.manifest["scoring"]["identity_leaks"]
    by_player = {row[0]: row[1:] for row in rows}
    n_answers, rate, question_rate, recorded = by_player["atlas"]
    assert recorded == mode
    # within three binomial standard deviations of the planted probability
    tolerance = 3 * math.sqrt(SELF_IDENTIFIES * (1 - SELF_IDENTIFIES) / N_ANSWERS)
    assert n_answers == N_ANSWERS and abs(rate - SELF_IDENTIFIES) < tolerance
    assert question_rate == 0
    for other in ("borealis", "cirrus", "dynamo"):
        assert by_player[other][1:3] == (0, 0)


def test_what_raters_and_judges_saw_follows_the_choice(leak_run: Run):
    mode = leak_run.manifest["scoring"]["identity_leaks"]
    answers = _jsonl(leak_run, ArenaFiles.ANSWERS)
    leaked = {a["answer_id"]: a for a in answers if a["leaked_identities"]}
    assert leaked and all(a["answerer"] == "atlas" for a in leaked.values())
    assert all(a["leaked_identities"] == ["atlas", "mock-arena"] for a in leaked.values())
    judgments = _jsonl(leak_run, ArenaFiles.JUDGMENTS)
    judged = {j["answer_id"] for j in judgments}
    prompts = " ".join(j["prompt"] for j in judgments).casefold()
    said = [name for name in NAMES if f"{name}," in prompts or f"{name}." in prompts]
    if mode == "flag":
        assert all(a["shown_text"] == a["text"] for a in answers)
        assert said == ["atlas", "mock-arena"]
        assert set(leaked) <= judged
    elif mode == "scrub":
        assert all("[redacted]" in a["shown_text"] for a in leaked.values())
        assert all("[redacted]" not in a["text"] for a in leaked.values())
        assert said == [] and "[redacted]" in prompts
        assert set(leaked) <= judged
    else:
        assert all(a["is_void"] for a in leaked.values())
        assert not any(a["is_void"] for a in answers if a["answer_id"] not in leaked)
        assert said == [] and not (set(leaked) & judged)


def test_void_answers_are_not_scored_and_are_counted(leak_run: Run):
    mode = leak_run.manifest["scoring"]["identity_leaks"]
    scored = {
        answer_id
        for (answer_id,) in _rows(
            leak_run, "select answer_id from '{run}/answer_scores.parquet' where is_scored"
        )
    }
    leaked = {a["answer_id"] for a in _jsonl(leak_run, ArenaFiles.ANSWERS) if a["is_void"]}
    ((n_void, n_leaked),) = _rows(
        leak_run,
        "select n_answers_void, n_answers_leaked from '{run}/identity_leaks.parquet' "
        "where player = 'atlas'",
    )
    if mode == "void":
        assert leaked and not (leaked & scored) and n_void == n_leaked == len(leaked)
    else:
        assert not leaked and n_void == 0 and n_leaked > 0


# rationales for extreme scores -----------------------------------------------------------------


def test_every_extreme_judgement_has_its_rationale_and_its_call(run: Run):
    judgments = _jsonl(run, ArenaFiles.JUDGMENTS)
    extreme = [j for j in judgments if j["is_valid"] and j["score"] in (0, 10)]
    assert extreme, "the run has no extreme judgement to follow up"
    assert [j["rationale_asked"] for j in judgments] == [j in extreme for j in judgments]
    calls = [c for c in _jsonl(run, RunFiles.CALLS) if c["phase"] == "rationale"]
    asked = {(c["item_id"], c["agent"]) for c in calls}
    assert asked == {(j["answer_id"], j["judge"]) for j in extreme}
    # the reliable mock names the steps it counted (a flaky one may chatter: any non-empty
    # reply is a rationale)
    reliable = [j["rationale"] for j in extreme if j["judge"] == "solid"]
    assert reliable
    assert all(r.startswith("The answer shows ") and r.endswith("reflects.") for r in reliable)


def test_the_rationale_mart_recounts_the_judgements(run: Run):
    judgments = [j for j in _jsonl(run, ArenaFiles.JUDGMENTS) if j["is_valid"]]
    rows = _rows(
        run,
        "select judge, n_judgments, n_low, n_high, extreme_rate, n_rationales_asked, "
        "n_rationales, mean_rationale_length from '{run}/judge_rationales.parquet' "
        "where judge is not null order by judge",
    )
    assert [row[0] for row in rows] == sorted({j["judge"] for j in judgments})
    for judge, n, n_low, n_high, rate, n_asked, n_rationales, mean_length in rows:
        mine = [j for j in judgments if j["judge"] == judge]
        lengths = [len(j["rationale"]) for j in mine if j["rationale"] is not None]
        assert n == len(mine)
        assert n_low == sum(j["score"] == 0 for j in mine)
        assert n_high == sum(j["score"] == 10 for j in mine)
        assert rate == pytest.approx((n_low + n_high) / n)
        assert n_asked == n_low + n_high
        assert n_rationales == len(lengths)
        if lengths:
            assert mean_length == pytest.approx(sum(lengths) / len(lengths))
