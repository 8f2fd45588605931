"""A run played in chunks resumes with any executor: committed chunks are kept, a missing or
damaged one is played again, and the result is the run in one process, line for line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pdbench.errors import RunDirError
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.records import PDFiles
from pdbench.run.executors import LocalExecutor
from pdbench.storage.manifest import read_manifest, write_manifest
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import SHARDS_DIR, record_files, shard_dir
from pdbench.ui.pd.reader import match_rounds
from pdbench.ui.run_check import RunProblem, check_run

TIMES = re.compile(rb'"(timestamp_utc|started_at|finished_at)":"[^"]*"')
CONFIG = """\
run_id: sharded
seed: 5
replicates: 3
horizon: {type: geometric, stop_prob: 0.02, max_rounds: 200}
conditions: []
round_robin:
  agents: [TFT, ALLD, WSLS, GTFT]
"""


def _lines(run_dir: Path, name: str) -> bytes:
    return TIMES.sub(b"", b"".join(path.read_bytes() for path in record_files(run_dir, name)))


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "sharded.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_a_stopped_sharded_run_resumes_in_one_process(config: Path, tmp_path: Path) -> None:
    loaded = load_config(config)
    local = run_experiment(loaded, output_dir=tmp_path / "local").run_dir
    run_dir = tmp_path / "sharded"
    run_experiment(loaded, output_dir=run_dir, executor=LocalExecutor(), chunk_rounds=12)
    manifest = read_manifest(run_dir)
    assert len(manifest.shards) >= 4
    # stopped by force: a chunk never committed, one damaged, a worker's temporary folder left
    shutil.rmtree(shard_dir(run_dir, 1))
    rounds = shard_dir(run_dir, 2) / PDFiles.ROUNDS
    rounds.write_bytes(rounds.read_bytes()[:-300])
    stale = run_dir / SHARDS_DIR / ".part-00003.host-99.tmp"
    stale.mkdir()
    write_manifest(run_dir, manifest.model_copy(update={"status": "interrupted"}))
    kept = shard_dir(run_dir, 0) / PDFiles.ROUNDS
    before = kept.stat().st_mtime_ns

    result = run_experiment(loaded, output_dir=run_dir, resume=True)

    assert result.manifest.status == "completed"
    assert kept.stat().st_mtime_ns == before, "a committed chunk was played again"
    assert not stale.exists()
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert _lines(run_dir, name) == _lines(local, name), name
    assert result.manifest.counts == read_manifest(local).counts
    assert all(shard.committed for shard in result.manifest.shards)
    # the viewer finds the records of a sharded run too
    problem = check_run(run_dir)
    assert isinstance(problem, RunProblem) and problem.kind == "not_aggregated"  # not "empty"
    match = "TFT_vs_WSLS/2"
    assert match_rounds(run_dir, match).equals(match_rounds(local, match))
    assert len(match_rounds(run_dir, match)) > 0


def test_a_run_in_one_process_refuses_to_resume_in_chunks(config: Path, tmp_path: Path) -> None:
    loaded = load_config(config)
    run_dir = run_experiment(loaded, output_dir=tmp_path / "local").run_dir
    manifest = read_manifest(run_dir)
    write_manifest(run_dir, manifest.model_copy(update={"status": "interrupted"}))
    with pytest.raises(RunDirError, match=r"played in one process .* without --executor"):
        run_experiment(loaded, output_dir=run_dir, resume=True, executor=LocalExecutor())


def test_overwrite_replaces_a_sharded_run(config: Path, tmp_path: Path) -> None:
    loaded = load_config(config)
    run_dir = tmp_path / "run"
    run_experiment(loaded, output_dir=run_dir, executor=LocalExecutor(), chunk_rounds=12)
    result = run_experiment(loaded, output_dir=run_dir, overwrite=True)
    assert result.manifest.status == "completed" and not result.manifest.shards
    assert not (run_dir / SHARDS_DIR).exists()
    assert (run_dir / PDFiles.ROUNDS).is_file()
