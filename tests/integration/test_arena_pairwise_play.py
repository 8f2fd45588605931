"""Pairwise judging played on mock players, without the marts: calls counted = calls made,
invalid verdicts re-asked then recorded invalid, the same rows at any concurrency, a
resumed run that keeps a finished pairwise phase."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pdbench.arena.plan import plan_calls
from pdbench.arena.records import ArenaFiles, PairwiseJudgmentRecord
from pdbench.arena.resume import prepare_arena_resume
from pdbench.arena.runner import run_arena
from pdbench.games import load_config
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles

from tests.conftest import write_arena


def _player(name: str, *, role: str = "player", **mock: float) -> dict:
    return {
        "ref": "agents/arena_player.yaml",
        "overrides": {"name": name, "role": role, "mock": mock},
    }


def _play(path: Path, out: str) -> Path:
    return run_arena(load_config(path), output_dir=out).run_dir


def _rows(run_dir: Path, name: str) -> list[dict]:
    return list(read_jsonl(run_dir / name))


def test_a_reference_plan_is_played_call_for_call_and_bad_verdicts_are_re_asked(project: Path):
    # three players and a referee r whose every reply is invalid; verdicts only
    players = [_player(f"p{i}", answer_skill=0.8 - 0.3 * i) for i in range(3)]
    players.append(_player("r", role="judge", invalid_rate=1.0))
    pairing = {"scheme": "reference", "reference": "p0"}
    path = write_arena(project / "configs", players=players, max_retries=1,
                       judging="pairwise", pairing=pairing)  # fmt: skip
    loaded = load_config(path)
    planned = {p.phase: p.calls for p in plan_calls(loaded.config)}
    run_dir = _play(path, "reference")
    assert _rows(run_dir, ArenaFiles.JUDGMENTS) == []  # no absolute judging
    assert "judge" not in planned
    # r's ratings are invalid but the questions are kept (filter none): 9 questions,
    # 2 pairs each (p0-p1, p0-p2), judged by the player in neither and by r: 9 * 2 * 2
    assert planned["pairwise"] == 36
    verdicts = _rows(run_dir, ArenaFiles.PAIRWISE_JUDGMENTS)
    calls = [c for c in _rows(run_dir, RunFiles.CALLS) if c["phase"] == "pairwise"]
    assert len(verdicts) == len([c for c in calls if c["attempt"] == 1]) == 36
    for line in verdicts:
        PairwiseJudgmentRecord.model_validate(line)
        assert "p0" in (line["first_player"], line["second_player"])
        assert line["judge"] not in (line["first_player"], line["second_player"])
    by_r = [v for v in verdicts if v["judge"] == "r"]
    assert len(by_r) == 18
    assert all((v["is_valid"], v["verdict"], v["attempts"]) == (False, None, 2) for v in by_r)
    assert all(v["is_valid"] and v["attempts"] == 1 for v in verdicts if v["judge"] != "r")
    assert Counter(c["status"] for c in calls if c["agent"] == "r") == {"invalid": 36}
    assert {c["parse_rule"] for c in calls if c["agent"] != "r"} == {"verdict"}


def _without_times(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in {"timestamp_utc", "latency_ms"}} for r in rows]


def test_concurrency_1_and_16_give_identical_verdicts(project: Path):
    players = [_player(f"p{i}", answer_skill=0.9 - 0.2 * i, invalid_rate=0.1, latency_ms=2)
               for i in range(3)]  # fmt: skip
    fields = {"judging": "both", "pairing": {"position_swap": True}}
    one = _play(write_arena(project / "configs", "one.yaml", players=players,
                            max_concurrency=1, **fields), "one")  # fmt: skip
    sixteen = _play(write_arena(project / "configs", "sixteen.yaml", players=players,
                                max_concurrency=16, **fields), "sixteen")  # fmt: skip
    for name in (ArenaFiles.PAIRWISE_JUDGMENTS, ArenaFiles.JUDGMENTS, RunFiles.CALLS):
        assert _without_times(_rows(one, name)) == _without_times(_rows(sixteen, name)), name
    calls = [c for c in _rows(sixteen, RunFiles.CALLS) if c["phase"] == "pairwise"]
    assert any(c["attempt"] > 1 for c in calls)  # re-asks were exercised


def test_a_resumed_run_keeps_a_finished_pairwise_phase_and_drops_an_unfinished_one(
    project: Path,
):
    path = write_arena(project / "configs", players=3, judging="pairwise")
    run_dir = _play(path, "resumed")
    verdicts = _rows(run_dir, ArenaFiles.PAIRWISE_JUDGMENTS)
    manifest_path = run_dir / RunFiles.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    assert manifest["phases_done"][-1] == "pairwise"
    manifest_path.write_text(json.dumps(manifest | {"status": "interrupted"}))
    state = prepare_arena_resume(run_dir, read_manifest(run_dir))
    assert list(state.records) == ["generate", "rate", "answer", "judge", "pairwise"]
    assert state.records["pairwise"] == verdicts  # type: ignore[index]
    # the pairwise phase not marked done: its file and calls go, and it is played again
    unfinished = {"status": "interrupted", "phases_done": manifest["phases_done"][:-1]}
    manifest_path.write_text(json.dumps(manifest | unfinished))
    state = prepare_arena_resume(run_dir, read_manifest(run_dir))
    assert "pairwise" not in state.records
    assert not (run_dir / ArenaFiles.PAIRWISE_JUDGMENTS).exists()
    assert all(c["phase"] != "pairwise" for c in _rows(run_dir, RunFiles.CALLS))
