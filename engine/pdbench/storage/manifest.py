"""``run_manifest.json``: what was run, with what, where, and how it ended.

The manifest is written when a run starts (status ``running``) and rewritten when it ends
(``completed``, ``failed`` or ``interrupted``); each write replaces the file atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pdbench.errors import RunDirError
from pdbench.redact import redacted
from pdbench.storage.schema import RunFiles, RunManifest

__all__ = [
    "VERSIONED_PACKAGES",
    "canonical_sha256",
    "git_commit",
    "new_manifest",
    "no_such_run_dir",
    "package_versions",
    "read_manifest",
    "require_run_dir",
    "write_manifest",
]

VERSIONED_PACKAGES = (
    "pdbench",
    "pydantic",
    "pyyaml",
    "typer",
    "duckdb",
    "pyarrow",
    "dbt-core",
    "dbt-duckdb",
)
"""Packages whose installed version every manifest records (when installed); a run adds its
providers' SDKs (:func:`pdbench.providers.base.sdk_packages`)."""


def canonical_sha256(value: object) -> str:
    """sha256 of the canonical JSON of ``value`` (sorted keys, compact, UTF-8)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def package_versions(extra: tuple[str, ...] = ()) -> dict[str, str]:
    """Installed versions of ``VERSIONED_PACKAGES`` and ``extra`` (missing ones left out)."""
    versions = {}
    for name in (*VERSIONED_PACKAGES, *extra):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_commit(folder: Path | None = None) -> str | None:
    """The commit checked out at ``folder`` (default: the working directory), if any."""
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=folder or Path.cwd(),
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = result.stdout.strip()
    return commit if result.returncode == 0 and commit else None


def new_manifest(
    *,
    run_id: str,
    game: str,
    seed: int,
    config_path: str,
    config: dict[str, Any],
    metric_params: dict[str, Any],
    started_at: str,
    scoring: dict[str, Any] | None = None,
    inputs: dict[str, str] | None = None,
    endpoints: dict[str, list[Any]] | None = None,
    packages: tuple[str, ...] = (),
) -> RunManifest:
    """The manifest of a run that is starting; ``packages``: versioned besides
    :data:`VERSIONED_PACKAGES`."""
    return RunManifest(
        run_id=run_id,
        game=game,
        status="running",
        seed=seed,
        config_path=config_path,
        config_sha256=canonical_sha256(config),
        config=config,
        inputs=inputs or {},
        endpoints=endpoints or {},
        metric_params=metric_params,
        scoring=scoring or {},
        versions=package_versions(packages),
        git_commit=git_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        started_at=started_at,
    )


def write_manifest(run_dir: Path, manifest: RunManifest) -> Path:
    """Write ``run_manifest.json`` into ``run_dir`` atomically, every secret in it masked
    (:func:`pdbench.redact.redacted`: a password in a URL, a key pasted into a config)."""
    path = run_dir / RunFiles.MANIFEST
    tmp = path.with_suffix(".json.tmp")
    text = json.dumps(redacted(manifest.model_dump(mode="json")), indent=2, ensure_ascii=False)
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def no_such_run_dir(run_dir: Path) -> str:
    """What every command and the viewer say of a run directory that is not there."""
    return f"{run_dir}: no such run directory"


def require_run_dir(run_dir: Path) -> None:
    """Refuse a run directory (or a folder of runs, or a series) that is not there, in the
    one line every command that reads one gives (:func:`no_such_run_dir`)."""
    if not run_dir.is_dir():
        raise RunDirError(no_such_run_dir(run_dir))


def read_manifest(run_dir: Path) -> RunManifest:
    """Read and validate ``run_manifest.json`` of ``run_dir`` (a missing ``run_dir``:
    :func:`require_run_dir`)."""
    require_run_dir(run_dir)
    path = run_dir / RunFiles.MANIFEST
    if not path.is_file():
        raise RunDirError(f"{run_dir}: not a run directory (no {RunFiles.MANIFEST})")
    try:
        return RunManifest.model_validate_json(path.read_bytes())
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(the file)"
        raise RunDirError(
            f"{path}: not a valid pdbench manifest: {where}: {first['msg']}"
        ) from None
    except OSError as err:
        raise RunDirError(f"{path}: cannot read: {err.strerror or err}") from None
