"""Writing an imported run whole or not at all, and the provenance of its sources.

:func:`staged_run_dir` hands the importer an empty staging folder beside the output
directory (same file system, so the final move is a rename); the importer writes the run
there; only when it returns is the folder moved to ``output_dir``. An exception (bad input,
Ctrl-C, a full disk) removes the staging folder and leaves ``output_dir`` as it was.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdbench.errors import RunDirError
from pdbench.imports.base import ImportInputError, SourceProblem
from pdbench.run.run_dir import is_run_file
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import SourceFile

__all__ = ["check_output_dir", "file_sha256", "source_files", "staged_run_dir"]

_CHUNK = 1 << 20
_FOLDER_MODE = 0o755
"""The run directory's mode (a staging folder is made private, 0o700)."""


def file_sha256(path: Path) -> str:
    """sha256 of the bytes of ``path``."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def source_files(paths: list[Path]) -> list[SourceFile]:
    """``paths`` with their sha256, as the manifest records them; a missing or unreadable
    file is a one-line error naming it."""
    files = []
    for path in paths:
        if not path.is_file():
            raise ImportInputError("no such file", at=SourceProblem(path))
        files.append(SourceFile(path=str(path.resolve()), sha256=file_sha256(path)))
    return files


def check_output_dir(output_dir: Path, *, overwrite: bool) -> None:
    """Refuse, before anything is read, an output directory that holds anything, unless
    ``overwrite`` and it is a run directory pdbench wrote."""
    if not output_dir.exists():
        return
    if not output_dir.is_dir():
        raise RunDirError(f"{output_dir}: exists and is not a directory")
    contents = list(output_dir.iterdir())
    if not contents:
        return
    if not overwrite:
        raise RunDirError(f"{output_dir}: already exists (--overwrite replaces it)")
    read_manifest(output_dir)
    strangers = sorted(p.name for p in contents if not is_run_file(p))
    if strangers:
        raise RunDirError(
            f"{output_dir}: holds files pdbench did not write ({', '.join(strangers[:3])}); "
            "not replaced"
        )


@contextmanager
def staged_run_dir(output_dir: Path, *, overwrite: bool) -> Iterator[Path]:
    """An empty folder to write the run into; moved to ``output_dir`` when the block ends
    without an exception, removed otherwise."""
    check_output_dir(output_dir, overwrite=overwrite)
    output_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.import-", dir=output_dir.parent))
    staging.chmod(_FOLDER_MODE)
    try:
        yield staging
        if output_dir.exists():
            shutil.rmtree(output_dir)
        staging.rename(output_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
