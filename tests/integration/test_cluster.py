"""A round robin played on a real Dask cluster (a scheduler and two worker processes on
127.0.0.1) writes the very lines of a run in one process, even when a worker is killed in
the middle of a chunk; dbt reads the chunks and gives the same metrics."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

import duckdb
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.records import PDFiles
from pdbench.run.executors import DaskExecutor
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import SHARDS_DIR, record_files

from tests.integration.dask_cluster import local_dask_cluster
from tests.servers.local import SAFETY_NET_S

TIMES = re.compile(rb'"(timestamp_utc|started_at|finished_at)":"[^"]*"')
CHUNK_ROUNDS = 6000
ROUND_ROBIN = """\
run_id: cluster
seed: 11
replicates: 4
noise: 0.02
horizon: {type: geometric, stop_prob: 0.001, max_rounds: 3000}
conditions: []
round_robin:
  agents: [ALLC, ALLD, TFT, GRIM, WSLS, GTFT]
  self_play: true
"""


def _concatenated(run_dir: Path, name: str) -> bytes:
    """The lines of record file ``name``, chunks in part order, timestamps blanked."""
    return TIMES.sub(b"", b"".join(path.read_bytes() for path in record_files(run_dir, name)))


def _assert_same_lines(sharded: Path, local: Path) -> None:
    assert sorted(p.name for p in (sharded / SHARDS_DIR).iterdir())[0] == "part-00000"
    assert not (sharded / PDFiles.ROUNDS).exists()
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert _concatenated(sharded, name) == _concatenated(local, name), name
    manifest = read_manifest(sharded)
    assert manifest.status == "completed"
    assert manifest.counts == read_manifest(local).counts
    assert len(manifest.shards) > 4 and all(shard.committed for shard in manifest.shards)
    assert not list((sharded / SHARDS_DIR).glob(".*")), "a temporary chunk folder was left"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("config") / "round_robin.yaml"
    path.write_text(ROUND_ROBIN, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def local_run(config: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("local") / "run"
    run_experiment(load_config(config), output_dir=run_dir)
    return run_dir


def test_a_round_robin_on_two_workers_equals_the_local_run(
    config: Path, local_run: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    with local_dask_cluster(tmp_path / "cluster", workers=2) as cluster:
        result = run_experiment(
            load_config(config),
            output_dir=run_dir,
            executor=DaskExecutor(cluster.address),
            chunk_rounds=CHUNK_ROUNDS,
        )
    assert result.manifest.status == "completed"
    _assert_same_lines(run_dir, local_run)
    assert len({shard.worker for shard in result.manifest.shards}) == 2, "one worker played all"
    for folder in (run_dir, local_run):
        aggregate_run(folder)  # runs the dbt data tests: every match has all its rounds
    query = "select * from read_parquet(?) order by all"
    for mart in ("aggregates.parquet", "tournament_standings.parquet"):
        sharded = duckdb.execute(query, [str(run_dir / mart)]).fetchall()
        assert sharded == duckdb.execute(query, [str(local_run / mart)]).fetchall(), mart


def _kill_mid_chunk(run_dir: Path, victim: int, done: threading.Event) -> bool:
    """SIGKILL process ``victim`` while it holds a chunk it has not committed: it is stopped
    (SIGSTOP) as soon as one of its temporary chunk folders shows, and killed only if that
    folder is still uncommitted once it stands still. False if the run ended first."""
    shards = run_dir / SHARDS_DIR
    while not done.is_set():
        mine = list(shards.glob(f".part-*-{victim}.*.tmp")) if shards.is_dir() else []
        if mine:
            os.kill(victim, signal.SIGSTOP)
            if mine[0].is_dir():
                os.kill(victim, signal.SIGKILL)
                return True
            os.kill(victim, signal.SIGCONT)
        time.sleep(0.001)
    return False


def test_a_worker_killed_mid_chunk_loses_no_round_and_writes_none_twice(
    config: Path, local_run: Path, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    outcome: dict[str, object] = {}
    done = threading.Event()
    with local_dask_cluster(tmp_path / "cluster", workers=2) as cluster:

        def play() -> None:
            try:
                outcome["result"] = run_experiment(
                    load_config(config),
                    output_dir=run_dir,
                    executor=DaskExecutor(cluster.address),
                    chunk_rounds=CHUNK_ROUNDS // 2,
                )
            except BaseException as exc:
                outcome["error"] = exc
            finally:
                done.set()

        player = threading.Thread(target=play)
        player.start()
        victim = cluster.workers[0]
        killed = _kill_mid_chunk(run_dir, victim.pid, done)
        player.join(timeout=SAFETY_NET_S)
        assert victim.wait(timeout=SAFETY_NET_S) == -signal.SIGKILL
    assert killed, "the run ended before the worker could be killed mid-chunk"
    assert "error" not in outcome, outcome.get("error")
    _assert_same_lines(run_dir, local_run)
