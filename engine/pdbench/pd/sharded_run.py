"""A PD run played in chunks by an executor, into the sharded layout of the run directory.

``pdbench run <config> --executor dask://<host>:<port>`` comes here: the plan is cut into
chunks (:func:`pdbench.pd.chunks.plan_chunks`), the manifest lists them
(``shards``), the executor plays them wherever its workers are, and each worker commits its
chunk's folder whole (:mod:`pdbench.storage.shards`). The manifest marks a chunk committed as
its report arrives; the run is ``completed`` only when every chunk is.

Resume (``--resume``, with any executor, ``local`` included): the chunks listed in the
manifest are kept; one whose folder is there and holds every match with all its rounds is
skipped, every other one is played again; the temporary folders of chunks that were never
committed are removed first. A run started in one process (one file per record) resumes in
one process only.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.errors import IntegrityError, RunDirError
from pdbench.game import RunResult
from pdbench.pd.chunks import (
    ChunkJob,
    ChunkReport,
    chunk_rounds_for,
    committed_counts,
    plan_chunks,
    play_chunk,
)
from pdbench.pd.inputs import pd_run_spec
from pdbench.pd.plan import MatchPlan
from pdbench.run.executors import Executor
from pdbench.run.frame import play_run
from pdbench.run.run_dir import LiveManifest
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles, RunManifest, RunStatus, ShardRecord
from pdbench.storage.shards import remove_unfinished_shards, shard_dir

__all__ = ["MANIFEST_EVERY_S", "is_sharded", "run_sharded"]

MANIFEST_EVERY_S = 1.0
"""Least time between two rewrites of the manifest while chunks complete."""


def is_sharded(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a run played in chunks (its manifest lists them)."""
    if not (run_dir / RunFiles.MANIFEST).is_file():
        return False
    return bool(read_manifest(run_dir).shards)


def run_sharded(
    loaded: LoadedConfig,
    *,
    plans: list[MatchPlan],
    run_dir: Path,
    executor: Executor,
    resume: bool,
    overwrite: bool,
    chunk_rounds: int | None,
    on_match_done: Callable[[MatchPlan, dict[str, Any]], None] | None = None,
) -> RunResult:
    """Play ``plans`` chunk by chunk on ``executor`` into ``run_dir`` (see module), within
    the run frame."""
    run_dir = run_dir.resolve()
    config = loaded.config
    spec = pd_run_spec(loaded, config, run_dir)
    play = _ShardedPlay(
        loaded,
        run_dir,
        plans=plans,
        executor=executor,
        chunk_rounds=chunk_rounds,
        on_match_done=on_match_done,
    )
    with executor:
        return play_run(spec, play, resume=resume, overwrite=overwrite)


class _ShardedPlay:
    """The PD's part of a run in chunks (:class:`pdbench.run.frame.GamePlay`): the chunks
    listed in the manifest, the uncommitted ones played on the executor."""

    def __init__(
        self,
        loaded: LoadedConfig,
        run_dir: Path,
        *,
        plans: list[MatchPlan],
        executor: Executor,
        chunk_rounds: int | None,
        on_match_done: Callable[[MatchPlan, dict[str, Any]], None] | None,
    ) -> None:
        self.loaded, self.run_dir, self.plans = loaded, run_dir, plans
        self.executor, self.chunk_rounds, self.on_match_done = executor, chunk_rounds, on_match_done
        self.book = _ShardBook([])

    def start(self, manifest: RunManifest) -> RunManifest:
        chunk_rounds = self.chunk_rounds
        if chunk_rounds is None:
            chunk_rounds = chunk_rounds_for(self.plans, slots=self.executor.slots())
        shards = plan_chunks(self.plans, chunk_rounds=chunk_rounds)
        return self._checked(manifest.model_copy(update={"shards": shards}))

    def resume(self, manifest: RunManifest) -> RunManifest:
        if not manifest.shards:
            raise RunDirError(
                f"{self.run_dir}: this run was played in one process (one file per record); "
                "resume it without --executor"
            )
        if sum(shard.matches for shard in manifest.shards) != len(self.plans):
            raise RunDirError(f"{self.run_dir}: the manifest's chunks do not cover the plan")
        remove_unfinished_shards(self.run_dir)
        return self._checked(manifest)

    def _checked(self, manifest: RunManifest) -> RunManifest:
        shards = _checked(self.run_dir, manifest.shards, plans=self.plans)
        self.book = _ShardBook(shards)
        return manifest.model_copy(update={"shards": shards})

    def play(self, live: LiveManifest) -> None:
        book, plans = self.book, self.plans
        book.live = live
        jobs = [
            ChunkJob(
                loaded=self.loaded,
                run_dir=self.run_dir,
                shard=shard,
                plans=tuple(plans[shard.first_match : shard.first_match + shard.matches]),
            )
            for shard in book.shards
            if not shard.committed
        ]

        def on_done(job: ChunkJob, report: ChunkReport) -> None:
            book.committed(job.shard, report)
            if self.on_match_done is not None:
                for plan in job.plans:
                    self.on_match_done(plan, {"match_id": plan.match_id})

        self.executor.run(play_chunk, jobs, on_done=on_done)
        missing = [shard.part for shard in book.shards if not shard.committed]
        if missing:
            raise IntegrityError(f"{self.run_dir}: chunks {missing} were never committed")
        remove_unfinished_shards(self.run_dir)

    def close(self, status: RunStatus) -> None:
        self.book.close()

    def counts(self) -> dict[str, int]:
        return _counts(self.book.shards)


def _checked(
    run_dir: Path, shards: list[ShardRecord], *, plans: list[MatchPlan]
) -> list[ShardRecord]:
    """``shards`` as the disk has them: committed when the chunk's folder holds every match
    with all its rounds (whatever the manifest said); a folder that is not whole is removed."""
    checked = []
    for shard in shards:
        chunk = tuple(plans[shard.first_match : shard.first_match + shard.matches])
        folder = shard_dir(run_dir, shard.part)
        counts = committed_counts(folder, plans=chunk)
        if counts is None and folder.exists():
            shutil.rmtree(folder)  # not whole: played again
        checked.append(
            shard.model_copy(update={"committed": counts is not None, "counts": counts or {}})
        )
    return checked


class _ShardBook:
    """The chunks of a run as their reports arrive, written to the manifest at most once a
    second (a run of thousands of chunks would otherwise rewrite it thousands of times) and
    when the run ends; a resume reads the disk, not this list, so a lag loses nothing."""

    def __init__(self, shards: list[ShardRecord]) -> None:
        self.shards = shards
        self.live: LiveManifest | None = None
        self._written = time.monotonic()

    def committed(self, shard: ShardRecord, report: ChunkReport) -> None:
        self.shards[report.part] = shard.model_copy(
            update={"committed": True, "counts": report.counts, "worker": report.worker}
        )
        if self.live is not None and time.monotonic() - self._written >= MANIFEST_EVERY_S:
            self.live.update(shards=self.shards, counts=_counts(self.shards))
            self._written = time.monotonic()

    def close(self) -> None:
        """Write the chunks as they ended into the manifest."""
        if self.live is not None:
            self.live.update(shards=self.shards)


def _counts(shards: list[ShardRecord]) -> dict[str, int]:
    """The run's counts: the sum of its committed chunks'."""
    totals = {"rounds": 0, "matches": 0, "aborted_matches": 0, "calls": 0}
    for shard in shards:
        for name, value in shard.counts.items():
            totals[name] = totals.get(name, 0) + value
    return totals
