"""The arena's dbt models on a hand-written run directory with planted traits.

The run is played here by a tiny scripted tournament (no engine): four players whose answer
skill, judge leniency and favouritism are known, so the tests can check that the SQL
recovers them. The question filter is applied the way the engine will: build the
`tag:arena_questions` models after the ratings, read `question_quality.parquet`, answer only
the kept questions, then build everything.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import (
    AnswerRecord,
    ArenaFiles,
    JudgmentRecord,
    QuestionRatingRecord,
    QuestionRecord,
)
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.storage.schema import CallRecord, RunFiles, RunManifest

RUN_ID = "arena-planted"
STAMP = "2026-01-01T00:00:00Z"

# The truth the tournament must recover (what the mock's config will hold).
PLAYERS = [
    {
        "name": "ada",
        "answer_skill": 8.0,
        "question_quality": 7.0,
        "judge_leniency": 0.0,
        "judge_noise": 0.6,
        "favours": None,
    },
    {
        "name": "bob",
        "answer_skill": 6.5,
        "question_quality": 6.0,
        "judge_leniency": -0.5,
        "judge_noise": 0.6,
        "favours": None,
    },
    {
        "name": "cyd",
        "answer_skill": 5.0,
        "question_quality": 5.0,
        "judge_leniency": 2.0,
        "judge_noise": 0.6,
        "favours": None,
    },
    {
        "name": "dee",
        "answer_skill": 3.5,
        "question_quality": 4.0,
        "judge_leniency": 0.0,
        "judge_noise": 0.6,
        "favours": "bob",
    },
]
FAVOUR_BONUS = 3.0
QUESTIONS_PER_PLAYER = 8
SCORING = {
    "normalization": "shift",
    "question_filter": {"kind": "bottom_fraction", "fraction": 0.25, "min_score": 4.0},
    "bootstrap": {"n": 200, "seed": 11},
    "anomaly": {"permutations": 400, "seed": 13, "fdr": 0.1, "min_effect": 0.0},
    "min_judgments": 3,
    "identity_leaks": "flag",
    "rationales": {"low": 0, "high": 10},
    "players": PLAYERS,
}


def _write_jsonl(path: Path, records: list, *, torn_tail: str = "") -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.model_dump_json() + "\n")
        handle.write(torn_tail)


def _clamp(value: float) -> int:
    return max(0, min(10, round(value)))


def write_questions_and_ratings(run_dir: Path) -> None:
    """Phases 1 and 2 of the scripted tournament, and the manifest."""
    rng = random.Random(2026)
    manifest = RunManifest(
        run_id=RUN_ID,
        game="arena",
        status="running",
        seed=5,
        config_path="configs/arena.yaml",
        config_sha256="0" * 64,
        config={"game": "arena"},
        scoring=SCORING,
        python="3.12",
        platform="test",
        started_at=STAMP,
    )
    (run_dir / RunFiles.MANIFEST).write_text(manifest.model_dump_json(indent=2))
    questions, ratings, calls = [], [], []
    for author in PLAYERS:
        for position in range(1, QUESTIONS_PER_PLAYER + 1):
            question_id = f"q{rng.randrange(16**8):08x}"
            questions.append(
                QuestionRecord(
                    run_id=RUN_ID,
                    question_id=question_id,
                    author=author["name"],
                    category="logic",
                    text=f"question {position}",
                    position=position,
                    attempts=1,
                    prompt_sha256="p",
                    raw_line=f"{position}. question",
                    leaked_identities=[],
                    shown_text=f"question {position}",
                    is_void=False,
                )
            )
            for rater in PLAYERS:
                if rater["name"] == author["name"]:
                    continue
                score = _clamp(
                    author["question_quality"] + rater["judge_leniency"] + rng.gauss(0, 1.0)
                )
                ratings.append(
                    QuestionRatingRecord(
                        run_id=RUN_ID,
                        question_id=question_id,
                        rater=rater["name"],
                        score=score,
                        is_valid=True,
                        attempts=1,
                        presentation_index=len(ratings),
                        prompt_sha256="p",
                        raw_reply=str(score),
                    )
                )
    # One rating that stayed invalid after its retries: never counted.
    first = ratings[0]
    ratings[0] = first.model_copy(
        update={"score": None, "is_valid": False, "attempts": 3, "raw_reply": "excellent!"}
    )
    for index, player in enumerate(PLAYERS):
        calls.append(
            CallRecord(
                run_id=RUN_ID,
                call_id=f"c{index}",
                game="arena",
                phase="generate",
                agent=player["name"],
                attempt=1,
                provider="mock",
                model="mock",
                prompt_sha256="p",
                latency_ms=1.0,
                tokens_in=100,
                tokens_out=50,
                cost_usd=0.001,
                status="ok",
                timestamp_utc=STAMP,
            )
        )
    calls.append(
        CallRecord(
            run_id=RUN_ID,
            call_id="c-invalid",
            game="arena",
            phase="rate",
            agent=first.rater,
            item_id=first.question_id,
            attempt=1,
            provider="mock",
            model="mock",
            prompt_sha256="p",
            latency_ms=1.0,
            tokens_in=10,
            tokens_out=2,
            cost_usd=0.0,
            status="invalid",
            timestamp_utc=STAMP,
        )
    )
    _write_jsonl(run_dir / ArenaFiles.QUESTIONS, questions)
    _write_jsonl(run_dir / ArenaFiles.QUESTION_RATINGS, ratings)
    _write_jsonl(run_dir / RunFiles.CALLS, calls)


def write_answers_and_judgments(run_dir: Path, kept: list[tuple[str, str]]) -> None:
    """Phases 3 and 4 on the kept questions ((question_id, author) pairs)."""
    rng = random.Random(7)
    answers, judgments = [], []
    for question_id, _author in sorted(kept):
        difficulty = rng.gauss(0, 1.0)
        for answerer in PLAYERS:
            answer_id = f"a{rng.randrange(16**8):08x}"
            answers.append(
                AnswerRecord(
                    run_id=RUN_ID,
                    answer_id=answer_id,
                    question_id=question_id,
                    answerer=answerer["name"],
                    text="an answer",
                    is_valid=True,
                    attempts=1,
                    prompt_sha256="p",
                    raw_reply="an answer",
                    leaked_identities=[],
                    shown_text="an answer",
                    is_void=False,
                )
            )
            quality = answerer["answer_skill"] + difficulty
            for judge in PLAYERS:
                if judge["name"] == answerer["name"]:
                    continue
                bonus = FAVOUR_BONUS if judge["favours"] == answerer["name"] else 0.0
                score = _clamp(
                    quality + judge["judge_leniency"] + bonus + rng.gauss(0, judge["judge_noise"])
                )
                judgments.append(
                    JudgmentRecord(
                        run_id=RUN_ID,
                        answer_id=answer_id,
                        question_id=question_id,
                        judge=judge["name"],
                        score=score,
                        is_valid=True,
                        attempts=1,
                        presentation_index=len(judgments),
                        prompt_sha256="p",
                        raw_reply=str(score),
                        rationale_asked=score in (0, 10),
                        rationale="why" if score in (0, 10) else None,
                    )
                )
    last = judgments[-1]
    judgments[-1] = last.model_copy(
        update={"score": None, "is_valid": False, "attempts": 3, "raw_reply": "ten"}
    )
    # A crash while writing leaves a torn last line: it is cut off, never read.
    _write_jsonl(run_dir / ArenaFiles.ANSWERS, answers)
    _write_jsonl(run_dir / ArenaFiles.JUDGMENTS, judgments, torn_tail='{"run_id": "arena-pl')


def run_dbt(run_dir: Path, select: str, *, unit_tests: bool = True) -> None:
    """Build the selected arena models on run_dir, as pdbench does."""
    invoke_dbt(DbtRequest("build", run_dir=run_dir, select=select, unit_tests=unit_tests))


@dataclass(frozen=True)
class PlantedRun:
    run_dir: Path
    n_questions_after_filter_step: int
    kept_after_filter_step: list[tuple[str, str]]
    answers_existed_at_filter_step: bool


def build_planted_run(run_dir: Path) -> PlantedRun:
    """The whole scripted tournament, with the engine's filter step in the middle.

    Between rating and answering the engine builds only `tag:arena_questions` (no answer or
    judgement exists yet), reads `question_quality.parquet` and answers the kept questions.
    """
    write_questions_and_ratings(run_dir)
    run_dbt(run_dir, "tag:arena_questions", unit_tests=False)
    answers_existed = (run_dir / ArenaFiles.ANSWERS).exists()
    quality = run_dir / "question_quality.parquet"
    n_questions = duckdb.sql(f"select count(*) from '{quality}'").fetchall()[0][0]
    kept = duckdb.sql(f"select question_id, author from '{quality}' where is_kept").fetchall()
    write_answers_and_judgments(run_dir, kept)
    run_dbt(run_dir, "tag:arena")
    return PlantedRun(run_dir, n_questions, kept, answers_existed)


@pytest.fixture(scope="session")
def planted(tmp_path_factory: pytest.TempPathFactory) -> PlantedRun:
    return build_planted_run(tmp_path_factory.mktemp("arena_run"))


@pytest.fixture(scope="session")
def planted_run(planted: PlantedRun) -> Path:
    return planted.run_dir


def _rows(run_dir: Path, sql: str) -> list[tuple]:
    return duckdb.sql(sql.replace("{run}", str(run_dir))).fetchall()


# --- the question filter step ------------------------------------------------------------


def test_question_step_needs_no_answers(planted: PlantedRun) -> None:
    assert not planted.answers_existed_at_filter_step
    n_questions = len(PLAYERS) * QUESTIONS_PER_PLAYER
    assert planted.n_questions_after_filter_step == n_questions
    assert len(planted.kept_after_filter_step) == n_questions - int(0.25 * n_questions)


def test_only_kept_questions_are_scored(planted_run: Path) -> None:
    n_scored_questions, n_not_kept = _rows(
        planted_run,
        "select count(distinct question_id), count(*) filter (where not is_question_kept) "
        "from '{run}/answer_scores.parquet' where is_scored",
    )[0]
    n_questions = len(PLAYERS) * QUESTIONS_PER_PLAYER
    assert (n_scored_questions, n_not_kept) == (n_questions - int(0.25 * n_questions), 0)


# --- planted truth ------------------------------------------------------------------------


def test_leaderboard_follows_planted_skill(planted_run: Path) -> None:
    order = [
        row[0]
        for row in _rows(
            planted_run, "select player from '{run}/leaderboard.parquet' order by rank, player"
        )
    ]
    truth = [p["name"] for p in sorted(PLAYERS, key=lambda p: -p["answer_skill"])]
    assert order == truth


def test_intervals_contain_scores(planted_run: Path) -> None:
    rows = _rows(
        planted_run,
        "select score, ci_low, ci_high, rank, rank_ci_low, rank_ci_high, "
        "n_replicates from '{run}/leaderboard.parquet'",
    )
    for score, low, high, rank, rank_low, rank_high, n_replicates in rows:
        assert low <= score <= high
        assert rank_low <= rank <= rank_high
        assert n_replicates == SCORING["bootstrap"]["n"]


def test_lenient_judge_has_highest_leniency(planted_run: Path) -> None:
    judges = _rows(
        planted_run, "select judge from '{run}/judge_stats.parquet' order by leniency desc"
    )
    most_lenient = max(PLAYERS, key=lambda p: p["judge_leniency"])["name"]
    assert judges[0][0] == most_lenient


def test_judge_offsets_follow_planted_leniency(planted_run: Path) -> None:
    offsets = dict(
        _rows(planted_run, "select judge, fixed_effects_offset from '{run}/judge_stats.parquet'")
    )
    planted = {p["name"]: p["judge_leniency"] for p in PLAYERS}
    for a in planted:
        for b in planted:
            if planted[a] > planted[b]:
                assert offsets[a] > offsets[b], (a, b)


def test_favouring_pair_is_top_flagged(planted_run: Path) -> None:
    top = _rows(
        planted_run,
        "select judge, player, is_flagged, flag_kind "
        "from '{run}/judge_player_bias.parquet' order by anomaly_rank limit 1",
    )[0]
    favouring = next(p for p in PLAYERS if p["favours"])
    assert top[:3] == (favouring["name"], favouring["favours"], True)
    assert top[3] == "favouritism"


def test_torn_line_and_invalid_scores_are_not_counted(planted_run: Path) -> None:
    n_judgments, n_invalid = _rows(
        planted_run,
        "select sum(n_judges + n_judgments_invalid), sum(n_judgments_invalid) "
        "from '{run}/answer_scores.parquet'",
    )[0]
    text = (planted_run / ArenaFiles.JUDGMENTS).read_text()
    # the torn last line was cut off before dbt read the file; every complete line is kept
    assert text.endswith("}\n") and '{"run_id": "arena-pl' not in text
    assert n_judgments == len(text.splitlines())
    assert n_invalid == 1


def test_share_of_tens_is_counted_from_the_judgements(planted_run: Path) -> None:
    # counted here from judgments.jsonl: per judge, the 10s among the judgements with a score
    tens: dict[str, int] = {}
    scored: dict[str, int] = {}
    for line in (planted_run / ArenaFiles.JUDGMENTS).read_text().splitlines():
        record = json.loads(line)
        if record["score"] is None:
            continue
        judge = record["judge"]
        scored[judge] = scored.get(judge, 0) + 1
        tens[judge] = tens.get(judge, 0) + (record["score"] == 10)
    shares = dict(
        _rows(planted_run, "select judge, top_score_rate from '{run}/judge_stats.parquet'")
    )
    assert set(shares) == set(scored)
    for judge, share in shares.items():
        assert share == pytest.approx(tens[judge] / scored[judge], abs=1e-12), judge
    # the lenient judge gives 10s, a strict one none: the shares are not all alike
    assert shares["cyd"] > 0 and min(shares.values()) < shares["cyd"]


def test_every_judge_awards_five_on_average(planted_run: Path) -> None:
    means = _rows(planted_run, "select normalized_mean from '{run}/judge_stats.parquet'")
    assert all(abs(mean - 5) < 1e-9 for (mean,) in means)


def test_marts_are_written(planted_run: Path) -> None:
    # every mart of the catalogue, and no file it does not name
    assert {path.name for path in planted_run.glob("*.parquet")} == set(ArenaMart)


def test_viewer_details_hold_every_record(planted_run: Path) -> None:
    texts = {
        record["question_id"]: record["text"]
        for record in map(json.loads, (planted_run / ArenaFiles.QUESTIONS).read_text().splitlines())
    }
    assert (
        dict(
            _rows(
                planted_run, "select question_id, question_text from '{run}/question_stats.parquet'"
            )
        )
        == texts
    )
    n_answers = len((planted_run / ArenaFiles.ANSWERS).read_text().splitlines())
    ((n_detail, n_scored_detail),) = _rows(
        planted_run,
        "select count(*), count(*) filter (where is_scored) from '{run}/answer_detail.parquet'",
    )
    ((n_scored,),) = _rows(
        planted_run, "select count(*) filter (where is_scored) from '{run}/answer_scores.parquet'"
    )
    assert (n_detail, n_scored_detail) == (n_answers, n_scored)
    n_ratings = len((planted_run / ArenaFiles.QUESTION_RATINGS).read_text().splitlines())
    assert _rows(planted_run, "select count(*) from '{run}/rating_detail.parquet'") == [
        (n_ratings,)
    ]
    # the one judgement that stayed invalid: no score, its reply and attempts kept
    assert _rows(
        planted_run,
        "select score, normalized_score, n_attempts, raw_reply "
        "from '{run}/judgment_detail.parquet' where not is_valid",
    ) == [(None, None, 3, "ten")]


def test_manifest_scoring_is_what_the_marts_used(planted_run: Path) -> None:
    manifest = json.loads((planted_run / RunFiles.MANIFEST).read_text())
    normalization, bootstrap_n = _rows(
        planted_run, "select distinct normalization, bootstrap_n from '{run}/leaderboard.parquet'"
    )[0]
    assert normalization == manifest["scoring"]["normalization"]
    assert bootstrap_n == manifest["scoring"]["bootstrap"]["n"]


# --- a tiny run computed by hand ----------------------------------------------------------
#
# Three players each write one question (all kept: filter none) and answer all three. The
# true quality of an answer is 7 (p1), 5 (p2) or 3 (p3) on every question; p1 and p2 judge
# honestly, p3 adds 2 to everything. Raw judgements (judges never score their own answers):
#   p1 judges p2, p3: 5, 3      p2 judges p1, p3: 7, 3      p3 judges p1, p2: 9, 7
# fixed_effects fits score = quality + offset exactly: offsets 0, 0, 2, centred -2/3, -2/3,
# +4/3; the debiased scores are the qualities up to a constant, and their mean over the 18
# judgements is (7 + 5 + 3) / 3 = 5, so every answer scores its true quality: 7, 5, 3.
# (shift would give 6.5, 5, 3.5: p1 and p3 judge weaker/stronger pools than p2.)
# Raw means: p1 answers (7 + 9) / 2 = 8, p2 (5 + 7) / 2 = 6, p3 (3 + 3) / 2 = 3.
# Leniency (raw judge means): p1 (5 + 3) / 2 = 4, p2 (7 + 3) / 2 = 5, p3 (9 + 7) / 2 = 8.
# Every question gives the same scores, so every bootstrap replicate equals the point
# estimate and each interval is the score itself.

TINY_QUALITY = {"p1": 7, "p2": 5, "p3": 3}
TINY_LENIENCY = {"p1": 0, "p2": 0, "p3": 2}


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("arena_tiny")
    run_id = "arena-tiny"
    manifest = RunManifest(
        run_id=run_id,
        game="arena",
        status="completed",
        seed=1,
        config_path="x.yaml",
        config_sha256="0" * 64,
        config={},
        python="3.12",
        platform="test",
        started_at=STAMP,
        scoring={
            "normalization": "fixed_effects",
            "question_filter": {"kind": "none", "fraction": 0.33, "min_score": 4.0},
            "bootstrap": {"n": 50, "seed": 3},
            "anomaly": {"permutations": 20, "seed": 3, "fdr": 0.1, "min_effect": 0.0},
            "min_judgments": 1,
            "identity_leaks": "flag",
            "rationales": None,
        },
    )
    (run_dir / RunFiles.MANIFEST).write_text(manifest.model_dump_json())
    players = sorted(TINY_QUALITY)
    questions, ratings, answers, judgments = [], [], [], []
    for author in players:
        question_id = f"q-{author}"
        questions.append(
            QuestionRecord(
                run_id=run_id,
                question_id=question_id,
                author=author,
                category="math",
                text="?",
                position=1,
                attempts=1,
                prompt_sha256="p",
                raw_line="1. ?",
                leaked_identities=[],
                shown_text="?",
                is_void=False,
            )
        )
        for rater in players:
            if rater != author:
                ratings.append(
                    QuestionRatingRecord(
                        run_id=run_id,
                        question_id=question_id,
                        rater=rater,
                        score=5,
                        is_valid=True,
                        attempts=1,
                        presentation_index=0,
                        prompt_sha256="p",
                        raw_reply="5",
                    )
                )
        for answerer in players:
            answer_id = f"a-{author}-{answerer}"
            answers.append(
                AnswerRecord(
                    run_id=run_id,
                    answer_id=answer_id,
                    question_id=question_id,
                    answerer=answerer,
                    text="!",
                    is_valid=True,
                    attempts=1,
                    prompt_sha256="p",
                    raw_reply="!",
                    leaked_identities=[],
                    shown_text="!",
                    is_void=False,
                )
            )
            for judge in players:
                if judge != answerer:
                    score = TINY_QUALITY[answerer] + TINY_LENIENCY[judge]
                    judgments.append(
                        JudgmentRecord(
                            run_id=run_id,
                            answer_id=answer_id,
                            question_id=question_id,
                            judge=judge,
                            score=score,
                            is_valid=True,
                            attempts=1,
                            presentation_index=0,
                            prompt_sha256="p",
                            raw_reply=str(score),
                            rationale_asked=False,
                            rationale=None,
                        )
                    )
    _write_jsonl(run_dir / ArenaFiles.QUESTIONS, questions)
    _write_jsonl(run_dir / ArenaFiles.QUESTION_RATINGS, ratings)
    _write_jsonl(run_dir / ArenaFiles.ANSWERS, answers)
    _write_jsonl(run_dir / ArenaFiles.JUDGMENTS, judgments)
    run_dbt(run_dir, "tag:arena", unit_tests=False)
    return run_dir


def test_tiny_leaderboard_by_hand(tiny_run: Path) -> None:
    rows = _rows(
        tiny_run,
        "select player, score, rank, raw_score, ci_low, ci_high, "
        "rank_ci_low, rank_ci_high, n_answers from '{run}/leaderboard.parquet' "
        "order by player",
    )
    expected = {"p1": (7, 1, 8), "p2": (5, 2, 6), "p3": (3, 3, 3)}
    for player, score, rank, raw, low, high, rank_low, rank_high, n_answers in rows:
        want_score, want_rank, want_raw = expected[player]
        assert score == pytest.approx(want_score, abs=1e-9)
        assert (rank, rank_low, rank_high, n_answers) == (want_rank, want_rank, want_rank, 3)
        assert raw == pytest.approx(want_raw)
        assert low == pytest.approx(want_score, abs=1e-9)
        assert high == pytest.approx(want_score, abs=1e-9)


def test_tiny_judges_by_hand(tiny_run: Path) -> None:
    rows = _rows(
        tiny_run,
        "select judge, leniency, fixed_effects_offset, normalized_mean, "
        "krippendorff_alpha_normalized from '{run}/judge_stats.parquet' order by judge",
    )
    expected = {"p1": (4, -2 / 3), "p2": (5, -2 / 3), "p3": (8, 4 / 3)}
    for judge, leniency, offset, _normalized_mean, alpha in rows:
        assert leniency == pytest.approx(expected[judge][0])
        assert offset == pytest.approx(expected[judge][1], abs=1e-9)
        # After removing the offsets the judges agree exactly on every answer.
        assert alpha == pytest.approx(1.0)
