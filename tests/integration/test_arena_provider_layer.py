"""The arena on the shared provider layer: cache, prices, per-model limits, resume in process."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import arena_runtime, run_arena
from pdbench.games import load_config
from pdbench.providers import mock
from pdbench.providers.cache import ResponseCache
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.conftest import write_arena

PHASE_FILES = (ArenaFiles.QUESTIONS, ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS,
               ArenaFiles.JUDGMENTS)  # fmt: skip
TIMES = {"timestamp_utc", "latency_ms"}


def _rows(run_dir: Path, name: str, *, drop: frozenset[str] = frozenset()) -> list[dict]:
    return [
        {k: v for k, v in r.items() if k not in TIMES | drop} for r in read_jsonl(run_dir / name)
    ]


def _cached_players(n: int = 3, **mock_traits) -> list[dict]:
    return [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {"name": f"p{i}", "cache": True,
                          "mock": {"answer_skill": 0.9 - 0.2 * i, **mock_traits}},
        }
        for i in range(n)
    ]  # fmt: skip


def test_a_second_tournament_is_served_from_the_cache(project: Path):
    path = write_arena(project / "configs", players=_cached_players(), cache_path="cache.sqlite")
    loaded = load_config(path)
    run_arena(loaded, output_dir="one")
    calls = _rows(project / "one", RunFiles.CALLS)
    # every call is its own sample (phase, item, player, attempt): one cache entry each
    assert len(ResponseCache(project / "cache.sqlite")) == len(calls)
    assert not any(c["cache_hit"] for c in calls)
    run_arena(loaded, output_dir="two")
    again = _rows(project / "two", RunFiles.CALLS)
    assert [c["cache_hit"] for c in again] == [True] * len(calls)
    assert all(c["cost_usd"] == 0.0 for c in again)
    for name in PHASE_FILES:
        assert _rows(project / "one", name) == _rows(project / "two", name), name
    run_arena(loaded, output_dir="three", use_cache=False)
    assert not any(c["cache_hit"] for c in read_jsonl(project / "three" / RunFiles.CALLS))


def test_calls_are_priced_from_the_config(project: Path):
    prices = {"mock-arena": {"input_per_mtok": 1000.0, "output_per_mtok": 2000.0}}
    path = write_arena(project / "configs", players=3, prices=prices)
    run_arena(load_config(path), output_dir="out")
    calls = list(read_jsonl(project / "out" / RunFiles.CALLS))
    assert calls
    for call in calls:
        expected = (call["tokens_in"] * 1000.0 + call["tokens_out"] * 2000.0) / 1e6
        assert call["cost_usd"] == pytest.approx(expected)
        assert call["cost_usd"] > 0


def test_per_model_limits_hold_at_high_concurrency(project: Path, monkeypatch):
    in_flight, peak = 0, 0
    lock = threading.Lock()
    real_build = mock.build

    class Counting:
        def __init__(self, inner) -> None:
            self.inner = inner

        @property
        def last_usage(self):
            return self.inner.last_usage

        def complete(self, **kwargs):
            nonlocal in_flight, peak
            with lock:
                in_flight += 1
                peak = max(peak, in_flight)
            try:
                time.sleep(0.002)
                return self.inner.complete(**kwargs)
            finally:
                with lock:
                    in_flight -= 1

    monkeypatch.setattr(mock, "build", lambda **kw: Counting(real_build(**kw)))
    path = write_arena(
        project / "configs",
        players=3,
        max_concurrency=16,
        max_concurrency_per_model={"mock/mock-arena": 2},
    )
    run_arena(load_config(path), output_dir="out")
    assert peak == 2


def test_an_interrupted_tournament_resumes_and_replays_only_unpaid_calls(project: Path):
    path = write_arena(
        project / "configs", players=_cached_players(), max_concurrency=4,
        cache_path="cache.sqlite",
    )  # fmt: skip
    loaded = load_config(path)
    run_arena(loaded, output_dir="whole", use_cache=False)

    def stop_in_the_judge_phase(phase: str, done: int, total: int) -> None:
        if phase == "judge" and done == total // 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_arena(loaded, output_dir="cut", on_progress=stop_in_the_judge_phase)
    stopped = RunManifest.model_validate_json((project / "cut" / RunFiles.MANIFEST).read_text())
    assert stopped.status == "interrupted"
    assert stopped.phases_done == ["generate", "rate", "answer"]
    assert not (project / "cut" / ArenaFiles.JUDGMENTS).exists()
    paid = len(ResponseCache(project / "cache.sqlite"))

    result = run_arena(loaded, output_dir="cut", resume=True)
    assert result.manifest.status == "completed" and len(result.manifest.resumed_at) == 1
    assert result.manifest.phases_done == ["generate", "rate", "answer", "judge"]
    for name in PHASE_FILES:
        assert _rows(project / "cut", name) == _rows(project / "whole", name), name
    no_cache = frozenset({"cache_hit", "cost_usd"})
    calls = _rows(project / "cut", RunFiles.CALLS)
    assert [{k: v for k, v in c.items() if k not in no_cache} for c in calls] == _rows(
        project / "whole", RunFiles.CALLS, drop=no_cache
    )
    # only the judge phase's calls (judgements and the rationales they ask for) were
    # replayed; those already paid for came from the cache
    hits = [c for c in calls if c["cache_hit"]]
    judge_calls = [c for c in calls if c["phase"] in ("judge", "rationale")]
    assert "judge" in {c["phase"] for c in hits} <= {"judge", "rationale"}
    assert len(hits) == paid - (len(calls) - len(judge_calls))
    assert 0 < len(hits) < len(judge_calls)
    whole = RunManifest.model_validate_json((project / "whole" / RunFiles.MANIFEST).read_text())
    assert result.manifest.counts == whole.counts


def test_resume_refuses_another_arena_config(project: Path):
    path = write_arena(project / "configs", players=3)
    run_arena(load_config(path), output_dir="out")
    other = write_arena(project / "configs", players=3, seed=99)
    from pdbench.errors import RunDirError

    with pytest.raises(RunDirError, match="cannot resume: the config differs"):
        run_arena(load_config(other), output_dir="out", resume=True)


def test_the_runtime_opens_the_cache_only_for_players_that_use_it(project: Path):
    plain = load_config(write_arena(project / "configs", players=3, cache_path="c.sqlite"))
    assert arena_runtime(plain.config).cache is None
    cached = load_config(
        write_arena(project / "configs", "b.yaml", players=_cached_players(), cache_path="c.sqlite")
    )
    assert arena_runtime(cached.config).cache is not None
    assert arena_runtime(cached.config, use_cache=False).cache is None


def test_resuming_a_finished_tournament_changes_no_row(project: Path):
    path = write_arena(project / "configs", players=3)
    loaded = load_config(path)
    run_arena(loaded, output_dir="out")
    before = {name: _rows(project / "out", name) for name in (*PHASE_FILES, RunFiles.CALLS)}
    result = run_arena(loaded, output_dir="out", resume=True)
    assert result.manifest.status == "completed" and len(result.manifest.resumed_at) == 1
    for name, rows in before.items():
        assert _rows(project / "out", name) == rows, name
