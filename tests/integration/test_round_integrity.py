"""No round is lost silently: matches played on many threads keep every round, a run whose
rounds went missing is not called complete, and ``--resume`` replays such matches."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from pdbench.errors import IntegrityError
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles

from tests.conftest import CONFIGS

TIMES = {"timestamp_utc", "started_at", "finished_at", "latency_ms"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _short_matches(run_dir: Path) -> list[tuple[str, int, int]]:
    """(match, rounds_played, round lines) of every match whose rounds are not all there,
    counted here with plain json, independently of the engine's own check."""
    found = Counter(r["match_id"] for r in _lines(run_dir / PDFiles.ROUNDS))
    return [
        (m["match_id"], m["rounds_played"], found[m["match_id"]])
        for m in _lines(run_dir / PDFiles.MATCHES)
        if found[m["match_id"]] != m["rounds_played"]
    ]


def _demo(project: Path, *, n: int, max_concurrency: int) -> Path:
    """The demo experiment (policy-only and LLM matches mixed) with a fixed horizon of ``n``."""
    text = (CONFIGS / "experiment.yaml").read_text(encoding="utf-8")
    text = text.replace(
        "horizon:\n  type: geometric              # or: {type: fixed, n: 50}\n"
        "  stop_prob: 0.05\n  max_rounds: 60\n",
        f"horizon: {{type: fixed, n: {n}}}\nmax_concurrency: {max_concurrency}\n",
    )
    assert f"n: {n}" in text
    path = project / "configs" / "stress.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def fast_switching():
    """Threads switch every microsecond: a race on a shared buffer shows within a few runs
    (with the unlocked bulk write of policy matches, 3 of 20 such runs lost rounds)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_many_concurrent_runs_lose_no_round(project: Path, fast_switching) -> None:
    loaded = load_config(_demo(project, n=3, max_concurrency=32))
    losses = {}
    for run in range(40):
        run_dir = project / "runs" / str(run)
        result = run_experiment(loaded, replicates=20, output_dir=run_dir, use_cache=False)
        assert result.manifest.status == "completed"
        if short := _short_matches(run_dir):
            losses[run] = short
        assert result.counts["rounds"] == 7 * 20 * 3
    assert losses == {}


def _drop_rounds_of(monkeypatch: pytest.MonkeyPatch, match_id: str) -> None:
    """Policy matches write their rounds in bulk; this takes the bulk of ``match_id`` and
    loses it on the way to the file, as the unlocked buffer once did."""
    real = JsonlWriter.write_text

    def lossy(self: JsonlWriter, text: str, lines: int) -> None:
        if f'"match_id":"{match_id}"' in text:
            self.count += lines
            self.bytes += len(text.encode())
            return
        real(self, text, lines)

    monkeypatch.setattr(JsonlWriter, "write_text", lossy)


@pytest.mark.parametrize("max_concurrency", [4, 1], ids=["threads", "one-by-one"])
def test_a_run_with_lost_rounds_fails_and_resume_replays_the_match(
    project: Path, monkeypatch: pytest.MonkeyPatch, max_concurrency: int
) -> None:
    loaded = load_config(_demo(project, n=5, max_concurrency=max_concurrency))
    whole = project / "whole"
    run_experiment(loaded, output_dir=whole)

    lossy = project / "lossy"
    with monkeypatch.context() as patch:
        _drop_rounds_of(patch, "gtft_vs_wsls/1")
        with pytest.raises(IntegrityError, match=r"gtft_vs_wsls/1: 0 of 5 rounds"):
            run_experiment(loaded, output_dir=lossy)
    manifest = read_manifest(lossy)
    assert manifest.status == "failed"
    assert "gtft_vs_wsls/1: 0 of 5 rounds in rounds.jsonl" in (manifest.failure or "")
    assert _short_matches(lossy) == [("gtft_vs_wsls/1", 5, 0)]

    resumed = run_experiment(loaded, output_dir=lossy, resume=True)
    assert resumed.manifest.status == "completed"
    assert resumed.manifest.failure is None
    assert _short_matches(lossy) == []
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        strip = [{k: v for k, v in r.items() if k not in TIMES} for r in _lines(lossy / name)]
        want = [{k: v for k, v in r.items() if k not in TIMES} for r in _lines(whole / name)]
        assert strip == want, name


def test_resume_replays_a_match_whose_round_lines_were_deleted(project: Path) -> None:
    """A hole left by a crash or an editor: the match line says 5 rounds, 3 remain."""
    loaded = load_config(_demo(project, n=5, max_concurrency=1))
    run_dir = project / "run"
    run_experiment(loaded, output_dir=run_dir)
    rounds = run_dir / PDFiles.ROUNDS
    lines = rounds.read_text(encoding="utf-8").splitlines(keepends=True)
    hole = [i for i, line in enumerate(lines) if '"match_id":"grim_vs_tft/0"' in line][1:3]
    rounds.write_text("".join(x for i, x in enumerate(lines) if i not in hole), encoding="utf-8")

    result = run_experiment(loaded, output_dir=run_dir, resume=True)
    assert result.manifest.status == "completed"
    replayed = [r for r in _lines(rounds) if r["match_id"] == "grim_vs_tft/0"]
    assert [r["round_index"] for r in replayed] == [1, 2, 3, 4, 5]
    assert _short_matches(run_dir) == []
