"""The sharded layout of a run directory: one folder per chunk, committed whole.

A run played on a cluster (``pdbench run --executor dask://...``) splits its matches into
chunks, contiguous ranges of the plan. Each chunk is played by one worker into a folder of
its own, which holds the same record files a run directory does::

    <run_dir>/shards/part-00000/rounds.jsonl   (and matches.jsonl, calls.jsonl)
    <run_dir>/shards/part-00001/...

A worker writes into ``shards/.part-<k>.<host>-<pid>.<token>.tmp`` and renames that folder
to ``shards/part-<k>`` when the chunk is complete: a rename is atomic, so a chunk is there whole
or not at all, whatever happens to the worker. A second attempt at a chunk already committed
finds the name taken and drops its own copy, so no round is ever written twice. Reading
``part-00000``, ``part-00001``, ... in name order gives the lines of a run played in one
process, in the same order. :func:`record_files` is how every reader finds a record's files
in either layout (the dbt macro ``read_run_json`` does the same with a glob).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import uuid
from pathlib import Path

__all__ = [
    "SHARDS_DIR",
    "commit_shard",
    "record_files",
    "records_written",
    "remove_unfinished_shards",
    "shard_dir",
    "temporary_shard_dir",
]

SHARDS_DIR = "shards"
"""The folder of a run directory that holds its chunks."""
_PART = "part-{part:05d}"


def shard_dir(run_dir: Path, part: int) -> Path:
    """The committed folder of chunk ``part``."""
    return run_dir / SHARDS_DIR / _PART.format(part=part)


def temporary_shard_dir(run_dir: Path, part: int) -> Path:
    """A new, empty folder that this attempt alone writes chunk ``part`` into; its name says
    which host and process write it."""
    token = uuid.uuid4().hex[:8]
    name = f".{_PART.format(part=part)}.{socket.gethostname()}-{os.getpid()}.{token}.tmp"
    path = run_dir / SHARDS_DIR / name
    path.mkdir(parents=True)
    return path


def commit_shard(temporary: Path, final: Path) -> bool:
    """Rename ``temporary`` to ``final`` (atomic). False when ``final`` was already committed
    by another attempt at the same chunk: ``temporary`` is then removed."""
    try:
        temporary.rename(final)
    except OSError:
        if not final.is_dir():
            raise
        shutil.rmtree(temporary, ignore_errors=True)
        return False
    with contextlib.suppress(OSError):  # make the rename itself durable where it can be
        fd = os.open(final.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return True


def remove_unfinished_shards(run_dir: Path) -> list[Path]:
    """Remove the temporary folders of chunks that were never committed (a worker killed
    mid-chunk); call it only while no worker plays for this run. Returns what was removed."""
    folder = run_dir / SHARDS_DIR
    stale = sorted(folder.glob(".part-*.tmp")) if folder.is_dir() else []
    for path in stale:
        shutil.rmtree(path, ignore_errors=True)
    return stale


def record_files(run_dir: Path, name: str) -> list[Path]:
    """The files holding record file ``name`` (``rounds.jsonl``) of ``run_dir``, in order:
    the file itself when the run wrote one, else the committed chunks' files in part order;
    none when neither is there."""
    single = run_dir / name
    if single.is_file():
        return [single]
    return sorted((run_dir / SHARDS_DIR).glob(f"part-*/{name}"))


def records_written(run_dir: Path, name: str) -> bool:
    """Whether record file ``name`` of ``run_dir`` (or any of its chunks' files) holds anything
    but whitespace."""
    return any(_holds_a_line(path) for path in record_files(run_dir, name))


def _holds_a_line(path: Path) -> bool:
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 16):
            if chunk.strip():
                return True
    return False
