"""One writer per run directory: an OS lock held for a whole run, resume or aggregation.

The lock is ``fcntl.flock`` on ``<run_dir>/.pdbench.lock``, a file that stays in the run
directory (``--overwrite`` empties the directory around it). A writer decides whether it may
write into a folder before it takes the lock, reading only
(:func:`pdbench.run.run_dir.check_run_dir`), so that a folder it refuses is left untouched (a
lock file made and removed again changes the folder's time). One refused under the lock all
the same (:class:`RunDirError`, before it wrote anything) removes what it made: the lock
file, and the folder and its parents when it made them. The kernel releases it when the
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
    made = (
        [folder for folder in (run_dir, *run_dir.parents) if not folder.exists()] if create else []
    )
    if create:
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            _undo(lock=None, folders=made)
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
            _undo(lock=path if created_lock else None, folders=made)
            raise
    finally:
        os.close(fd)


def _undo(*, lock: Path | None, folders: list[Path]) -> None:
    """Remove the lock file and the folders this holder made, innermost first, each only if
    it is empty (the lock still held, so no other writer is between the two)."""
    try:
        if lock is not None:
            lock.unlink(missing_ok=True)
        for folder in folders:
            if any(folder.iterdir()):
                return
            folder.rmdir()
    except OSError:
        pass


def _reason(err: OSError) -> str:
    return err.strerror or type(err).__name__
