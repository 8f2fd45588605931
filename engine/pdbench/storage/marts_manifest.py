"""``marts_manifest.json``: what the marts of a run directory were built from.

``pdbench aggregate`` writes it once the marts are built: the size and modification time of
every raw file the build read (each ``*.jsonl`` of the run, of its chunks, and
``run_manifest.json``). A reader compares it with the files as they are now
(:func:`stale_raw_files`): a file that grew, was rewritten, appeared or vanished since means
the marts no longer say what the raw files hold (``--resume --no-aggregate`` after an
``aggregate``, votes cast since), and the viewer says so with the command that rebuilds them.
Marts built before this file existed have none, and nothing can be said of them.

A build that fails (a data test that does not hold, a raw file that cannot be read) records
its one-line reason instead (:func:`write_build_failure`, read by :func:`build_failure`): the
run's own manifest says how the play ended, this file how its metrics did, and the viewer
shows that the tables it holds are not those of the run.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import SHARDS_DIR

__all__ = [
    "MARTS_MANIFEST",
    "build_failure",
    "raw_file_stamps",
    "stale_raw_files",
    "write_build_failure",
    "write_marts_manifest",
]

MARTS_MANIFEST = "marts_manifest.json"
"""The file, in the run directory."""


def raw_file_stamps(run_dir: Path) -> dict[str, list[int]]:
    """Every raw file of ``run_dir`` (relative path) -> [size in bytes, mtime in ns]."""
    paths = [
        *run_dir.glob("*.jsonl"),
        *(run_dir / SHARDS_DIR).glob("part-*/*.jsonl"),
        run_dir / RunFiles.MANIFEST,
    ]
    stamps: dict[str, list[int]] = {}
    for path in sorted(paths):
        try:
            stat = path.stat()
        except OSError:
            continue
        stamps[path.relative_to(run_dir).as_posix()] = [stat.st_size, stat.st_mtime_ns]
    return stamps


def write_marts_manifest(run_dir: Path) -> Path:
    """Record the raw files the marts of ``run_dir`` were just built from (atomically)."""
    return _write(run_dir, {"built_from": raw_file_stamps(run_dir)})


def write_build_failure(run_dir: Path, reason: str) -> Path:
    """Record that the last build of the marts of ``run_dir`` failed, and why (one line)."""
    return _write(run_dir, {"built_from": {}, "failure": reason.splitlines()[0] if reason else ""})


def build_failure(run_dir: Path) -> str | None:
    """The reason the last build of the marts of ``run_dir`` failed; None when it did not
    (or nothing was recorded)."""
    recorded = _read(run_dir)
    failure = recorded.get("failure") if recorded is not None else None
    return failure if isinstance(failure, str) else None


def _write(run_dir: Path, content: dict[str, Any]) -> Path:
    path = run_dir / MARTS_MANIFEST
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(content, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def _read(run_dir: Path) -> dict[str, Any] | None:
    try:
        recorded = json.loads((run_dir / MARTS_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, dict) else None


def stale_raw_files(run_dir: Path) -> list[str] | None:
    """The raw files of ``run_dir`` that changed, appeared or vanished since its marts were
    built; None when the marts say nothing of what they were built from."""
    try:
        recorded = json.loads((run_dir / MARTS_MANIFEST).read_text(encoding="utf-8"))
        built_from = recorded["built_from"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(built_from, dict):
        return None
    now = raw_file_stamps(run_dir)
    names = built_from.keys() | now.keys()
    return sorted(name for name in names if built_from.get(name) != now.get(name))
