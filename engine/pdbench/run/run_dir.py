"""The life of a run directory, the same for every game.

- :func:`check_run_dir`: whether a run may start (or resume) in it as it is now, reading
  only, so that a folder refused is left exactly as it was found: called before the lock is
  taken (which makes a lock file in it), and again under the lock;
- :func:`prepare_run_dir`: create it (an existing one only with ``overwrite``, and only if it
  is a run directory or empty);
- :func:`new_run_manifest`: the manifest of a run starting now;
- :func:`finished_run`: the manifest of a completed run of the very same config, which a
  rerun reports instead of refusing;
- :func:`resumable_manifest`: the manifest of a stopped run, if this config may continue it
  (same ``config_sha256``), and :func:`resumed`: that manifest, running again;
- :func:`manifest_lifecycle`: the manifest is written ``running`` when the run starts, can be
  updated while it plays (:meth:`LiveManifest.update`), and is rewritten ``completed``,
  ``interrupted`` (Ctrl-C, re-raised) or ``failed`` (any other exception, re-raised) with the
  counts when it ends.

The game-specific part of resuming (which matches or phases are finished) stays with each
game's runner: :mod:`pdbench.pd.resume` (PD) and :mod:`pdbench.arena.resume` (arena).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pdbench.clock import utc_timestamp
from pdbench.errors import PdbenchError, RunDirError
from pdbench.providers.base import sdk_packages
from pdbench.run.inputs import RunInputs, changed_input
from pdbench.storage.manifest import new_manifest, read_manifest, write_manifest
from pdbench.storage.marts_manifest import MARTS_MANIFEST
from pdbench.storage.records.files import record_file_names
from pdbench.storage.run_lock import LOCK_FILE
from pdbench.storage.schema import RunFiles, RunManifest, RunStatus
from pdbench.storage.shards import SHARDS_DIR

__all__ = [
    "LiveManifest",
    "RunResult",
    "check_run_dir",
    "finished_run",
    "is_run_file",
    "manifest_lifecycle",
    "new_run_manifest",
    "one_line",
    "prepare_run_dir",
    "resumable_manifest",
    "resumed",
]


def check_run_dir(
    run_dir: Path,
    *,
    resume: bool,
    overwrite: bool,
    config_sha256: str,
    inputs: RunInputs | None = None,
) -> None:
    """Refuse, in one line (:class:`RunDirError`), a run into ``run_dir`` as it is now: a
    resume needs a stopped run of this config (:func:`resumable_manifest`), a new run a
    missing or empty folder, or with ``overwrite`` a run directory (:func:`check_new_run_dir`).
    It only reads: a folder it refuses is left exactly as it was."""
    if resume:
        if not run_dir.is_dir():
            raise RunDirError(f"{run_dir}: no such run directory (nothing to resume)")
        resumable_manifest(run_dir, config_sha256=config_sha256, inputs=inputs)
    elif run_dir.is_dir():
        check_new_run_dir(run_dir, overwrite=overwrite, config_sha256=config_sha256)


def check_new_run_dir(
    run_dir: Path, *, overwrite: bool, config_sha256: str | None = None
) -> list[Path]:
    """What the existing ``run_dir`` holds but its lock, if a new run may replace it: nothing,
    or with ``overwrite`` a run directory's files (its manifest valid, nothing pdbench did not
    write). Otherwise :class:`RunDirError`; without ``overwrite`` it says whether ``--resume``
    could continue it (same ``config_sha256``). It only reads."""
    contents = sorted(p for p in run_dir.iterdir() if p.name != LOCK_FILE)
    if not contents:
        return []
    if not overwrite:
        raise RunDirError(
            f"{run_dir}: run directory already exists {_held(run_dir, config_sha256)}"
        )
    try:
        read_manifest(run_dir)
    except (PdbenchError, ValueError, OSError):
        raise RunDirError(
            f"{run_dir}: not a pdbench run directory (no valid {RunFiles.MANIFEST}); "
            "refusing to replace it"
        ) from None
    strangers = [p.name for p in contents if not is_run_file(p)]
    if strangers:
        raise RunDirError(
            f"{run_dir}: holds {strangers[0]!r}, which pdbench did not write; refusing to "
            "replace the directory (move it away first)"
        )
    return contents


def prepare_run_dir(run_dir: Path, *, overwrite: bool, config_sha256: str | None = None) -> None:
    """Make the locked ``run_dir`` (:func:`pdbench.storage.run_lock.hold_run_dir`) ready for a
    new run: empty it, once :func:`check_new_run_dir` accepts it (checked again here, as
    another process may have changed it before the lock was taken)."""
    for path in check_new_run_dir(run_dir, overwrite=overwrite, config_sha256=config_sha256):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def is_run_file(path: Path) -> bool:
    """Whether ``path`` is a file pdbench writes into a run directory (a record file, the
    manifest, a mart, the audience's invites, the temporary copy of one of them during an
    atomic rewrite, or the folder of a sharded run's chunks)."""
    if path.is_symlink():
        return False
    if path.is_dir():
        return path.name == SHARDS_DIR
    if not path.is_file():
        return False
    name = path.name.removesuffix(".tmp")
    return (
        name in record_file_names()
        or name.endswith(".parquet")
        or name in (LOCK_FILE, MARTS_MANIFEST)
    )


def _held(run_dir: Path, config_sha256: str | None) -> str:
    """What an existing ``run_dir`` holds, and the option that fits, for a refusal."""
    try:
        manifest = read_manifest(run_dir)
    except (PdbenchError, ValueError, OSError):
        return "(pass --overwrite to replace it)"
    if manifest.config_sha256 == config_sha256 and manifest.status != "completed":
        return (
            f"and holds this run, {manifest.status} (pass --resume to continue it, "
            "--overwrite to replace it)"
        )
    return "and holds a run of another config (pass --overwrite to replace it)"


class RunConfig(Protocol):
    """What a game's config gives every run: its id, its seed and its snapshot."""

    @property
    def run_id(self) -> str: ...
    @property
    def seed(self) -> int: ...
    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


def new_run_manifest(
    config: RunConfig,
    *,
    game: str,
    config_path: str,
    metric_params: dict[str, Any] | None = None,
    scoring: dict[str, Any] | None = None,
    inputs: RunInputs | None = None,
) -> RunManifest:
    """The manifest of a run of ``config`` (read from ``config_path``) starting now: its id,
    seed and config snapshot, and what the game's SQL reads (``metric_params``, ``scoring``)."""
    return new_manifest(
        run_id=config.run_id,
        game=game,
        seed=config.seed,
        config_path=config_path,
        config=config.model_dump(mode="json"),
        metric_params=metric_params or {},
        scoring=scoring,
        inputs=inputs.files if inputs else None,
        endpoints=inputs.endpoints if inputs else None,
        packages=sdk_packages(),
        started_at=utc_timestamp(),
    )


def finished_run(run_dir: Path, *, config_sha256: str) -> RunManifest | None:
    """The manifest in ``run_dir`` if it records a completed run of the config whose sha256
    is ``config_sha256``; None otherwise (no directory, another config, an unfinished or
    unreadable run)."""
    if not (run_dir / RunFiles.MANIFEST).is_file():
        return None
    try:
        manifest = read_manifest(run_dir)
    except (PdbenchError, ValueError, OSError):
        return None
    if manifest.status == "completed" and manifest.config_sha256 == config_sha256:
        return manifest
    return None


def resumable_manifest(
    run_dir: Path, *, config_sha256: str, inputs: RunInputs | None = None
) -> RunManifest:
    """The manifest of the run in ``run_dir``, if the config loaded now is the one it started
    with and, given ``inputs``, it reads the same files and reaches the same servers
    (:mod:`pdbench.run.inputs`); otherwise a one-line :class:`RunDirError`."""
    if not (run_dir / RunFiles.MANIFEST).is_file():
        raise RunDirError(
            f"{run_dir}: nothing to resume (no {RunFiles.MANIFEST}); run without --resume"
        )
    manifest = read_manifest(run_dir)
    if manifest.config_sha256 != config_sha256:
        raise RunDirError(
            f"{run_dir}: cannot resume: the config differs from the one this run started with "
            f"(sha256 {config_sha256[:12]} vs {manifest.config_sha256[:12]}; "
            "same file, same --replicates?)"
        )
    if inputs is not None:
        recorded = RunInputs(files=manifest.inputs, endpoints=manifest.endpoints)
        changed = changed_input(recorded, inputs)
        if changed is not None:
            raise RunDirError(
                f"{run_dir}: cannot resume: {changed}; put it back as it was, or start again "
                "with --overwrite"
            )
    return manifest


def resumed(manifest: RunManifest) -> RunManifest:
    """``manifest`` running again, with the time of this resume appended to ``resumed_at``."""
    return manifest.model_copy(
        update={
            "status": "running",
            "finished_at": None,
            "resumed_at": [*manifest.resumed_at, utc_timestamp()],
        }
    )


@dataclass
class RunResult:
    """What a finished (or stopped) run wrote."""

    run_dir: Path
    manifest: RunManifest
    counts: dict[str, int] = field(default_factory=dict)


class LiveManifest:
    """The manifest of a run in progress; every change is written at once (atomically)."""

    def __init__(self, run_dir: Path, manifest: RunManifest) -> None:
        self.run_dir = run_dir
        self.manifest = manifest
        write_manifest(run_dir, manifest)

    def update(self, **fields: Any) -> RunManifest:
        """Set ``fields`` and rewrite the file."""
        self.manifest = self.manifest.model_copy(update=fields)
        write_manifest(self.run_dir, self.manifest)
        return self.manifest


@contextmanager
def manifest_lifecycle(
    run_dir: Path,
    manifest: RunManifest,
    *,
    on_end: Callable[[RunStatus], dict[str, int]],
) -> Iterator[LiveManifest]:
    """Write ``manifest`` (status ``running``) and yield it; when the block ends, call
    ``on_end(status)`` (close files, count lines) and write the final status with its counts.

    The status is ``completed`` when the block finishes, ``interrupted`` on KeyboardInterrupt
    and ``failed`` on any other exception; exceptions are re-raised.
    """
    live = LiveManifest(run_dir, manifest.model_copy(update={"status": "running", "failure": None}))
    status: RunStatus = "failed"
    failure: str | None = "stopped before the end"
    try:
        yield live
        status, failure = "completed", None
    except KeyboardInterrupt:
        status, failure = "interrupted", "interrupted (Ctrl-C or SIGTERM)"
        raise
    except BaseException as exc:
        failure = one_line(exc)
        raise
    finally:
        try:
            counts = on_end(status)
        except Exception as exc:  # closing the files failed too (a full disk): say so anyway
            counts = dict(live.manifest.counts)
            status, failure = "failed", failure or one_line(exc)
        live.update(status=status, finished_at=utc_timestamp(), counts=counts, failure=failure)


def one_line(exc: BaseException) -> str:
    """``exc`` as one line: pdbench's own errors as they read, others with their type."""
    text = " ".join(str(exc).split())
    if isinstance(exc, PdbenchError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
