"""The chunks of a sharded PD run: contiguous ranges of the plan, each played whole by one
worker into a folder of its own (:mod:`pdbench.storage.shards`).

:func:`plan_chunks` cuts the plan (in plan order) into chunks of about ``chunk_rounds``
planned rounds; the cut depends on the plan only, and the manifest records it, so a resume
plays the very same chunks. :func:`play_chunk` is what a worker runs: it plays the chunk's
matches with the same code as a run in one process (:mod:`pdbench.pd.match_player`), checks
that every round reached the file, and commits the folder atomically. Since seeds derive by
name, a chunk's files are the same wherever and however often it is played (timestamps
aside), and the chunks' files read in part order are the lines of a run in one process.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from pathlib import Path

from pdbench.config.loader import LoadedConfig
from pdbench.errors import IntegrityError, RunDirError
from pdbench.pd.match_files import match_round_counts
from pdbench.pd.match_player import MatchFiles, count_aborted, match_player
from pdbench.pd.plan import MatchPlan
from pdbench.run.runtime import build_runtime
from pdbench.storage.schema import RunFiles, ShardRecord
from pdbench.storage.shards import commit_shard, shard_dir, temporary_shard_dir

__all__ = [
    "CHUNKS_PER_SLOT",
    "DEFAULT_CHUNK_ROUNDS",
    "MIN_CHUNK_ROUNDS",
    "ChunkJob",
    "ChunkReport",
    "chunk_rounds_for",
    "committed_counts",
    "plan_chunks",
    "play_chunk",
]

DEFAULT_CHUNK_ROUNDS = 250_000
"""The most planned rounds per chunk: about a second of one worker's time, so that the
scheduler's cost per chunk (tens of milliseconds) stays small and a lost chunk costs little."""
MIN_CHUNK_ROUNDS = 50_000
"""The fewest planned rounds per chunk (but for a run that small): a fifth of a second of a
worker's time, against tens of milliseconds of the scheduler's."""
CHUNKS_PER_SLOT = 4
"""Chunks per worker thread a run is cut into when it is large enough: the last chunks to
finish then keep few workers waiting, and a slow worker delays a quarter of its share."""


def chunk_rounds_for(plans: list[MatchPlan], *, slots: int) -> int:
    """Planned rounds per chunk for ``plans`` on ``slots`` worker threads: about
    :data:`CHUNKS_PER_SLOT` chunks per thread, within :data:`MIN_CHUNK_ROUNDS` and
    :data:`DEFAULT_CHUNK_ROUNDS`."""
    total = sum(plan.planned_rounds for plan in plans)
    share = -(-total // (max(1, slots) * CHUNKS_PER_SLOT))
    return max(MIN_CHUNK_ROUNDS, min(DEFAULT_CHUNK_ROUNDS, share))


def plan_chunks(plans: list[MatchPlan], *, chunk_rounds: int) -> list[ShardRecord]:
    """``plans`` cut, in order, into chunks of whole matches: a chunk ends with the match that
    brings it to ``chunk_rounds`` planned rounds (or with the plan)."""
    if chunk_rounds < 1:
        raise ValueError(f"chunk_rounds must be at least 1, got {chunk_rounds}")
    chunks: list[ShardRecord] = []
    first = rounds = 0
    for index, plan in enumerate(plans):
        rounds += plan.planned_rounds
        if rounds >= chunk_rounds or index == len(plans) - 1:
            chunks.append(
                ShardRecord(
                    part=len(chunks),
                    first_match=first,
                    matches=index + 1 - first,
                    planned_rounds=rounds,
                )
            )
            first, rounds = index + 1, 0
    return chunks


@dataclass(frozen=True)
class ChunkJob:
    """One chunk to play: everything a worker needs, sent to it whole."""

    loaded: LoadedConfig
    run_dir: Path
    """Absolute, and the same path on every worker (a shared file system)."""
    shard: ShardRecord
    plans: tuple[MatchPlan, ...]


@dataclass(frozen=True)
class ChunkReport:
    """What a worker says of a chunk it played."""

    part: int
    counts: dict[str, int]
    """Records in the committed folder (``rounds``, ``matches``, ``aborted_matches``,
    ``calls``)."""
    committed_here: bool
    """False when another attempt had already committed the chunk (this copy was dropped)."""
    worker: str
    """``host-pid`` of the process that played it."""


def play_chunk(job: ChunkJob) -> ChunkReport:
    """Play the matches of ``job`` into a temporary folder and commit it as the chunk's
    folder; runs on a worker."""
    worker = f"{socket.gethostname()}-{os.getpid()}"
    if not (job.run_dir / RunFiles.MANIFEST).is_file():
        raise RunDirError(
            f"{job.run_dir}: not found on worker {worker}; the run directory must be on a "
            "file system every worker mounts at the same path"
        )
    final = shard_dir(job.run_dir, job.shard.part)
    if (counts := committed_counts(final, plans=job.plans)) is not None:
        return ChunkReport(job.shard.part, counts, committed_here=False, worker=worker)
    temporary = temporary_shard_dir(job.run_dir, job.shard.part)
    config = job.loaded.config
    files = MatchFiles(
        temporary, kept=dict.fromkeys(_COUNTS, 0), statements=config.elicits_strategy
    )
    runtime = build_runtime(config, seed=config.seed, wants_cache=False)
    play = match_player(job.loaded, config, runtime=runtime, files=files)
    try:
        played = sum(play(plan)["rounds_played"] for plan in job.plans)
    finally:
        files.close()
    files.finish(order=None)
    counts = files.counts()
    if counts["rounds"] != played or counts["matches"] != len(job.plans):
        raise IntegrityError(
            f"{temporary}: {counts['rounds']} round lines for {played} rounds played"
        )
    committed = commit_shard(temporary, final)
    return ChunkReport(job.shard.part, counts, committed_here=committed, worker=worker)


_COUNTS = ("rounds", "matches", "aborted_matches", "calls")


def committed_counts(folder: Path, *, plans: tuple[MatchPlan, ...]) -> dict[str, int] | None:
    """The counts of the committed chunk ``folder`` when it holds every match of ``plans``
    with all its rounds; None when it is not there or not whole."""
    if not folder.is_dir():
        return None
    rounds = match_round_counts(folder)
    if rounds.problems() or rounds.played.keys() != {plan.match_id for plan in plans}:
        return None
    calls = folder / RunFiles.CALLS
    with calls.open("rb") as handle:
        n_calls = sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    return {
        "rounds": sum(rounds.found.values()),
        "matches": len(rounds.played),
        "aborted_matches": count_aborted(folder),
        "calls": n_calls,
    }
