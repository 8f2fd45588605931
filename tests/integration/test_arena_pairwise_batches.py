"""Pairwise verdicts in batches: a ``batch: true`` player's pairwise requests go into batches
(phase ``pairwise`` of ``batch_phases``, on by default), and the tournament is the same as in
single calls; left out of ``batch_phases``, they are single calls."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import write_arena

PER_CALL = {"timestamp_utc", "latency_ms", "batch_id", "cost_usd"}
PAIRING = {"scheme": "all", "position_swap": True, "prompt": "prompts/arena/pairwise.md"}


def _players(*, batch: bool) -> list[dict]:
    return [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {"name": f"p{i}", "batch": batch,
                          "mock": {"answer_skill": 0.9 - 0.2 * i,
                                   "invalid_rate": 0.25 if i == 1 else 0.0}},
        }
        for i in range(3)
    ]  # fmt: skip


def _rows(run_dir: Path, name: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in PER_CALL} for r in read_jsonl(run_dir / name)]


def _run(config: Path, out: str) -> None:
    result = CliRunner().invoke(
        cli.app, ["run", str(config), "--output-dir", out, "--no-aggregate"]
    )
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("phases", [None, ["answer"]])
def test_pairwise_verdicts_in_batches_equal_them_in_single_calls(project: Path, phases):
    configs = project / "configs"
    plain = write_arena(configs, "plain.yaml", players=_players(batch=False),
                        judging="pairwise", pairing=PAIRING)  # fmt: skip
    only = {"batch_phases": phases} if phases else {}
    batched = write_arena(configs, "batched.yaml", players=_players(batch=True),
                          judging="pairwise", pairing=PAIRING, **only)  # fmt: skip
    _run(plain, "plain")
    _run(batched, "batched")
    name = ArenaFiles.PAIRWISE_JUDGMENTS
    assert _rows(project / "batched", name) == _rows(project / "plain", name)
    assert _rows(project / "batched", RunFiles.CALLS) == _rows(project / "plain", RunFiles.CALLS)
    pairwise = [c for c in read_jsonl(project / "batched" / RunFiles.CALLS)
                if c["phase"] == "pairwise"]  # fmt: skip
    # 3 players x 3 questions, 3 pairs a question, each judged by the one who wrote
    # neither, in both orders; p1's unusable replies re-asked on top
    assert len(pairwise) > 3 * 3 * 3 * 2
    batched_ids = {(c["batch_id"] or "").startswith("mockbatch_") for c in pairwise}
    assert batched_ids == ({True} if phases is None else {False})
