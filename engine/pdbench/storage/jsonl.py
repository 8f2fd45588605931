"""Append-only JSONL files: one record per line, written whole or not at all on read.

A writer appends a line and (by default) flushes it, so a crash loses at most the line being
written. Writers are safe to share between threads: each line is written whole, under a lock,
and a write after ``close`` raises ``ValueError``. A reader skips a torn last line (no newline
at the end, or not JSON); a torn line anywhere else means the file was damaged, and is an
error.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from pdbench.errors import RunDirError

__all__ = ["JsonlWriter", "cut_torn_tails", "dumps_line", "read_jsonl", "rewrite_jsonl"]


_ENCODE = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), check_circular=False, allow_nan=False
).encode


def dumps_line(record: dict[str, Any]) -> str:
    """One record as a JSONL line (compact, UTF-8, ending in a newline); a NaN or an
    infinity, which JSON cannot hold, raises ``ValueError`` instead of a line no reader
    parses."""
    return _ENCODE(record) + "\n"


class JsonlWriter:
    """Appends records to one JSONL file; counts the lines and bytes it wrote, so that
    :meth:`written_whole` can tell, once it is closed, whether the file holds all of them."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self.bytes = 0
        self._lock = threading.Lock()
        self._file: IO[str] = path.open("a", encoding="utf-8", buffering=1 << 16)
        self._start = os.fstat(self._file.fileno()).st_size

    def write(self, record: dict[str, Any], *, flush: bool = True) -> None:
        """Append ``record``; ``flush=False`` leaves it in the buffer until the next flush."""
        line = dumps_line(record)
        size = _size(line)
        with self._lock:
            self._file.write(line)
            self.count += 1
            self.bytes += size
            if flush:
                self._file.flush()

    def write_text(self, text: str, lines: int) -> None:
        """Append ``lines`` pre-formatted lines (``text`` ends in a newline); not flushed.

        Under the same lock as :meth:`write`: a text buffer written from two threads at once
        loses data silently.
        """
        size = _size(text)
        with self._lock:
            self._file.write(text)
            self.count += lines
            self.bytes += size

    def written_whole(self) -> bool:
        """After :meth:`close`: whether the file grew by exactly the bytes handed to it (no
        line lost on the way, none written twice)."""
        return self.path.stat().st_size == self._start + self.bytes

    def flush(self) -> None:
        """Push buffered lines to the file (nothing once closed)."""
        with self._lock:
            if not self._file.closed:
                self._file.flush()

    def close(self) -> None:
        """Flush and close (idempotent). The file is closed even when the flush fails (a full
        disk): the error is raised once, and a second close does nothing."""
        with self._lock:
            if self._file.closed:
                return
            try:
                self._file.flush()
            finally:
                with contextlib.suppress(OSError):
                    self._file.close()  # closes even when its own flush fails again

    def __enter__(self) -> JsonlWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _size(text: str) -> int:
    """Bytes of ``text`` in UTF-8 (``isascii`` is a flag lookup: no encoding for ASCII)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def rewrite_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> int:
    """Replace ``path`` by ``records``, atomically: they are written to ``<name>.tmp``, synced,
    and moved over ``path``, so a crash leaves the old file or the new one, never a mix.
    Returns how many records were written."""
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    with tmp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(dumps_line(record))
            count += 1
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    return count


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The records of ``path`` in order, skipping a torn last line."""
    with path.open("rb") as handle:
        pending: bytes | None = None
        for line_number, raw in enumerate(handle):
            if pending is not None:
                yield _parse(pending, path=path, line_number=line_number)
            pending = raw
    if pending is None or not pending.endswith(b"\n"):
        return
    try:
        yield json.loads(pending)
    except ValueError:
        return


def _parse(raw: bytes, *, path: Path, line_number: int) -> dict[str, Any]:
    try:
        record: dict[str, Any] = json.loads(raw)
        return record
    except ValueError:
        raise RunDirError(f"{path}: line {line_number}: not a JSON record") from None


def cut_torn_tails(folder: Path) -> list[str]:
    """Cut a torn last line off every JSONL file of ``folder`` (a run directory) and say
    which: DuckDB reads the files strictly, and a crash while writing leaves one torn line at
    the end of a file. Call it only while no process writes there (the run directory's lock).
    """
    return [cut for path in sorted(folder.glob("*.jsonl")) if (cut := _cut_torn_tail(path))]


def _cut_torn_tail(path: Path) -> str | None:
    """Cut a torn last line (no newline at the end: a crash while writing) off ``path`` and
    say so; None when the file ends cleanly. Every complete line is kept."""
    if path.stat().st_size == 0:
        return None
    with path.open("rb+") as handle:
        # a writer that takes the lock (the audience page's votes) never has a line cut
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            return None
        handle.seek(size - 1)
        if handle.read(1) == b"\n":
            return None
        keep, end = 0, size
        while end > 0:
            start = max(0, end - (1 << 20))
            handle.seek(start)
            newline = handle.read(end - start).rfind(b"\n")
            if newline >= 0:
                keep = start + newline + 1
                break
            end = start
        handle.truncate(keep)
    line_number = _count_lines(path) + 1
    return (
        f"{path}: line {line_number}: a torn last line ({size - keep} bytes, a crash while "
        "writing) was cut off; every complete line is kept"
    )


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
