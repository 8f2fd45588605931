"""One writer per run directory: an OS lock held for a whole run, resume or aggregation.

The lock is ``fcntl.flock`` on ``<run_dir>/.pdbench.lock``, a file that stays in the run
directory (``--overwrite`` empties the directory around it). A writer refused before it wrote
anything (:class:`RunDirError`: a foreign folder ``--overwrite`` will not replace, a run to
resume that is not there) leaves the folder as it found it: no lock file, and no folder when
it made the folder. The kernel releases it when the
process ends, however it ends, so a killed run never leaves a stale lock. A second writer is
refused at once with the pid and the command of the holder; readers (the viewer, ad-hoc SQL)
never take the lock and are never blocked.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdbench.errors import RunDirError

__all__ = ["LOCK_FILE", "hold_run_dir"]

LOCK_FILE = ".pdbench.lock"


@contextmanager
def hold_run_dir(run_dir: Path, *, create: bool = False) -> Iterator[None]:
    """Hold the lock of ``run_dir`` for the block; ``create`` makes the directory first.

    Raises :class:`RunDirError` (one line) when another process holds it.
    """
    created_dir = create and not run_dir.exists()
    if create:
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise RunDirError(
                f"{run_dir}: cannot create the run directory: {_reason(err)}"
            ) from None
    elif not run_dir.is_dir():
        raise RunDirError(f"{run_dir}: no such run directory (nothing to resume or aggregate)")
    path = run_dir / LOCK_FILE
    created_lock = not path.exists()
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise RunDirError(f"{run_dir}: cannot lock the run directory: {_reason(err)}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip() or "unknown"
            raise RunDirError(
                f"{run_dir}: in use by another pdbench process ({holder}); wait for it to end "
                "or stop it"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {' '.join(sys.argv)[:300]}\n".encode(), 0)
        try:
            yield
        except RunDirError:
            # refused before anything was written: leave the folder as it was found
            _undo(run_dir, lock=path if created_lock else None, folder=created_dir)
            raise
    finally:
        os.close(fd)


def _undo(run_dir: Path, *, lock: Path | None, folder: bool) -> None:
    """Remove the lock file and the folder this holder created (the lock still held, so no
    other writer is between the two)."""
    try:
        if lock is not None:
            lock.unlink(missing_ok=True)
        if folder and not any(run_dir.iterdir()):
            run_dir.rmdir()
    except OSError:
        pass


def _reason(err: OSError) -> str:
    return err.strerror or type(err).__name__
