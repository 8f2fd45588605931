"""The demo tournament (``configs/arena.yaml``, unchanged) through ``pdbench run`` with the dbt
build, once per session: the scoring recovers what the mock players were planted with.

The truth is read from the run's manifest (``scoring.players``: the planted traits the config
gave each mock player), never written here, so the tests follow the demo if it is retuned.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS


@dataclass(frozen=True)
class DemoRun:
    run_dir: Path
    stdout: str
    players: list[dict]
    """The planted traits, from the manifest."""
    normalization: str


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    folder = tmp_path_factory.mktemp("arena_demo")
    shutil.copytree(CONFIGS, folder / "configs")
    run_dir = folder / "run"
    result = CliRunner().invoke(
        cli.app, ["run", str(folder / "configs/arena.yaml"), "--output-dir", str(run_dir)]
    )
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed"
    scoring = manifest["scoring"]
    return DemoRun(
        run_dir=run_dir,
        stdout=result.stdout,
        players=scoring["players"],
        normalization=scoring["normalization"],
    )


def _rows(run: DemoRun, sql: str) -> list[tuple]:
    return duckdb.sql(sql.format(run=run.run_dir)).fetchall()


def _competitors(demo: DemoRun) -> list[dict]:
    """The participants who answer (every role but the judge-only referee)."""
    return [p for p in demo.players if p["role"] != "judge"]


def _judges(demo: DemoRun) -> list[dict]:
    """The participants who judge (every role but the answerer-only one)."""
    return [p for p in demo.players if p["role"] != "answerer"]


def test_the_demo_plants_distinct_traits(demo: DemoRun):
    # the assertions below need distinct skills, one clear favouring pair, 6 participants who
    # answer, a judge-only referee and an answerer-only participant
    skills = [p["answer_skill"] for p in _competitors(demo)]
    assert len(skills) == 6 and len(set(skills)) == len(skills)
    assert [p["name"] for p in demo.players if p["role"] == "judge"] == ["fathom"]
    assert [p["name"] for p in demo.players if p["role"] == "answerer"] == ["gale"]
    assert sum(p["favours"] is not None for p in demo.players) == 1


def test_the_leaderboard_order_is_the_planted_skill_order(demo: DemoRun):
    ranked = _rows(
        demo,
        "select player, rank from '{run}/leaderboard.parquet' "
        "where player is not null and role <> 'judge' order by rank, player",
    )
    truth = [p["name"] for p in sorted(_competitors(demo), key=lambda p: -p["answer_skill"])]
    assert [player for player, _ in ranked] == truth
    assert [rank for _, rank in ranked] == list(range(1, len(truth) + 1))  # no ties


def test_aggregate_prints_the_leaderboard_with_intervals(demo: DemoRun):
    rows = _rows(
        demo,
        "select rank, player, score, ci_low, ci_high, rank_ci_low, rank_ci_high, n_answers, "
        "n_judgments from '{run}/leaderboard.parquet' where player is not null and role <> "
        "'judge' "
        "order by rank",
    )
    lines = demo.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("leaderboard ("))
    assert lines[start + 1].split() == ["rank", "player", "score", "95%", "CI", "rank",
                                        "interval", "answers", "valid", "judgements"]  # fmt: skip
    printed = [line.split() for line in lines[start + 2 : start + 2 + len(rows)]]
    for cells, (rank, player, score, low, high, rank_low, rank_high, n_answers, n_valid) in zip(
        printed, rows, strict=True
    ):
        ranks = str(rank_low) if rank_low == rank_high else f"{rank_low}-{rank_high}"
        assert cells == [str(rank), player, f"{score:.3f}", f"{low:.3f}", "..", f"{high:.3f}",
                         ranks, str(n_answers), str(n_valid)]  # fmt: skip
    referee = lines[start + 2 + len(rows)].split()
    assert referee == ["-", "fathom", "-", "judge", "only", "(not", "ranked)", "-", "0", "0"]


def test_the_most_lenient_planted_judge_has_the_highest_raw_leniency(demo: DemoRun):
    # Raw leniency (a judge's mean raw score) also carries the pool the judge saw: judges skip
    # their own answers, so a strong player judges a weaker pool, and the favouring judge's
    # bonus lifts its mean. The full order of raw means therefore need not follow the planted
    # leniency; the top does, because the demo plants one judge far more lenient than the
    # rest (its margin exceeds the pool and favour effects). The full order is asserted on
    # the pool-corrected estimate below.
    top = _rows(demo, "select judge from '{run}/judge_stats.parquet' order by leniency desc")
    planted = max(_judges(demo), key=lambda p: p["judge_leniency"])
    assert top[0][0] == planted["name"]


def test_pool_corrected_leniency_follows_the_planted_order(demo: DemoRun):
    # Spearman correlation 1 over judges with different planted leniency: every pair that the
    # config orders strictly is ordered the same way by the fixed-effects offset. Pairs with
    # equal planted leniency are not compared (the favouring judge's bonus may split them).
    offsets = dict(
        _rows(demo, "select judge, fixed_effects_offset from '{run}/judge_stats.parquet'")
    )
    planted = {p["name"]: p["judge_leniency"] for p in _judges(demo)}
    pairs = [(a, b) for a in planted for b in planted if planted[a] > planted[b]]
    assert len(pairs) >= 8
    assert [(a, b) for a, b in pairs if not offsets[a] > offsets[b]] == []


def test_the_planted_favouring_pair_is_the_top_flagged_pair(demo: DemoRun):
    top = _rows(
        demo,
        "select judge, player, is_flagged, flag_kind from '{run}/judge_player_bias.parquet' "
        "where anomaly_rank = 1",
    )
    favouring = next(p for p in demo.players if p["favours"] is not None)
    assert top == [(favouring["name"], favouring["favours"], True, "favouritism")]


def test_every_judge_awards_five_on_average_under_shift(demo: DemoRun):
    assert demo.normalization == "shift"
    means = _rows(demo, "select judge, normalized_mean from '{run}/judge_stats.parquet'")
    assert {judge for judge, _ in means} == {p["name"] for p in _judges(demo)}
    assert all(mean == pytest.approx(5.0, abs=1e-9) for _, mean in means)


def test_every_interval_contains_its_point_estimate(demo: DemoRun):
    rows = _rows(
        demo,
        "select score, ci_low, ci_high, rank, rank_ci_low, rank_ci_high "
        "from '{run}/leaderboard.parquet' where player is not null and role <> 'judge'",
    )
    assert len(rows) == len(_competitors(demo))
    for score, low, high, rank, rank_low, rank_high in rows:
        assert low <= score <= high
        assert rank_low <= rank <= rank_high


def test_the_answerer_planted_to_fall_for_every_trick_is_never_called_robust(demo: DemoRun):
    # borealis sees through no decoy (trick_robustness 0); dev mode gives it too few tricks
    # for its interval to exclude 0, so the honest verdict is "inconclusive", never "robust"
    gullible = [p["name"] for p in _competitors(demo) if p["trick_robustness"] == 0.0]
    assert gullible == ["borealis"]
    rows = _rows(
        demo,
        "select answerer, robustness, gap_ci_low, gap_ci_high, label_margin "
        "from '{run}/robustness.parquet' where answerer is not null",
    )
    labels = {answerer: label for answerer, label, *_ in rows}
    assert labels["borealis"] in {"caught by tricks", "inconclusive"}
    for answerer, label, low, high, margin in rows:
        # every verdict is the one its interval supports
        expected = (
            "caught by tricks" if high < 0
            else "better on tricks" if low > 0
            else "robust" if low >= -margin
            else "inconclusive"
        )  # fmt: skip
        assert label == expected, answerer
