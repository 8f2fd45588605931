"""Writing an imported run whole or not at all, one writer at a time, and the provenance of
its sources.

:func:`held_output_dir` holds the output directory's run lock
(:mod:`pdbench.storage.run_lock`, the lock ``pdbench run`` and ``aggregate`` take) for the
whole import: an import is refused while another pdbench process writes there, and nothing
else writes there while it imports. :func:`staged_run_dir` hands the importer an empty
staging folder beside the output directory (same file system, so the final move is a
rename), its own lock held too, so that the run directory it becomes is locked from the
moment it is in place; the importer writes the run there; only when it returns is the folder
moved to ``output_dir``. An exception (bad input, Ctrl-C, a full disk) removes the staging
folder and leaves ``output_dir`` as it was.

:func:`distinct_sources` refuses a source given twice (the same path, a link to it, a copy
with the same content): its games would count twice, doubling replicates and narrowing
intervals.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdbench.errors import RunDirError
from pdbench.imports.base import ImportInputError, SourceProblem
from pdbench.run.run_dir import is_run_file
from pdbench.storage.manifest import read_manifest
from pdbench.storage.run_lock import LOCK_FILE, hold_run_dir
from pdbench.storage.schema import SourceFile

__all__ = [
    "check_output_dir",
    "distinct_sources",
    "file_sha256",
    "held_output_dir",
    "source_files",
    "staged_run_dir",
]

_CHUNK = 1 << 20
_FOLDER_MODE = 0o755
"""The run directory's mode (a staging folder is made private, 0o700)."""


_digests: dict[tuple[str, int, int], str] = {}
"""(resolved path, size, mtime) -> sha256: a source is read for its digest once per import."""


def file_sha256(path: Path) -> str:
    """sha256 of the bytes of ``path``."""
    status = path.stat()
    key = (str(path.resolve()), status.st_size, status.st_mtime_ns)
    if key not in _digests:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
        _digests[key] = digest.hexdigest()
    return _digests[key]


def _content_sha256(path: Path) -> str:
    """sha256 of a file's bytes, or of a folder's files (their paths in it and digests)."""
    if not path.is_dir():
        return file_sha256(path)
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(path)}\0{file_sha256(file)}\n".encode())
    return digest.hexdigest()


def distinct_sources(sources: list[Path]) -> None:
    """Refuse, naming both, two sources that are one: the same path once links are
    followed, or the same content (a file, or a folder's files)."""
    by_path: dict[Path, Path] = {}
    by_content: dict[str, Path] = {}
    for source in sources:
        if not source.exists():
            continue  # the format says what is missing
        first = by_path.setdefault(source.resolve(), source)
        if first is not source:
            raise ImportInputError(
                f"the same {_kind(source)} as {first} (given twice, or a link to it): its games "
                "would be imported twice",
                at=SourceProblem(source),
            )
        content = _content_sha256(source)
        first = by_content.setdefault(content, source)
        if first is not source:
            raise ImportInputError(
                f"the same content as {first} (sha256 {content[:12]}): its games would be "
                "imported twice",
                at=SourceProblem(source),
            )


def _kind(path: Path) -> str:
    return "folder" if path.is_dir() else "file"


def source_files(paths: list[Path]) -> list[SourceFile]:
    """``paths`` with their sha256, as the manifest records them; a missing or unreadable
    file, or one file reached twice (through a link), is a one-line error naming it."""
    files = []
    seen: dict[Path, Path] = {}
    for path in paths:
        if not path.is_file():
            raise ImportInputError("no such file", at=SourceProblem(path))
        resolved = path.resolve()
        first = seen.setdefault(resolved, path)
        if first is not path:
            raise ImportInputError(
                f"the same file as {first} (reached twice, through a link): its games would "
                "be imported twice",
                at=SourceProblem(path),
            )
        files.append(SourceFile(path=str(resolved), sha256=file_sha256(path)))
    return files


def check_output_dir(output_dir: Path, *, overwrite: bool) -> None:
    """Refuse, before anything is read, an output directory that holds anything, unless
    ``overwrite`` and it is a run directory pdbench wrote; a link to a folder is refused (the
    import replaces the folder it names, not the one a link points to)."""
    if output_dir.is_symlink():
        raise RunDirError(
            f"{output_dir}: is a symbolic link (to {os.readlink(output_dir)}); an import "
            "replaces the run directory itself: give the folder's own path"
        )
    if not output_dir.exists():
        return
    if not output_dir.is_dir():
        raise RunDirError(f"{output_dir}: exists and is not a directory")
    contents = [p for p in output_dir.iterdir() if p.name != LOCK_FILE]
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
def held_output_dir(output_dir: Path, *, overwrite: bool) -> Iterator[None]:
    """Hold the run lock of ``output_dir`` (made when missing) for the block, once
    :func:`check_output_dir` accepts it; refused in one line while another pdbench process
    holds it. A folder made here is removed again when the block fails."""
    check_output_dir(output_dir, overwrite=overwrite)
    made = not output_dir.exists()
    try:
        with hold_run_dir(output_dir, create=True):
            yield
    except BaseException:
        if made:
            _remove_lock_folder(output_dir)
        raise


def _remove_lock_folder(folder: Path) -> None:
    """Remove ``folder`` if it holds nothing but a lock file."""
    try:
        if folder.is_dir() and {p.name for p in folder.iterdir()} <= {LOCK_FILE}:
            (folder / LOCK_FILE).unlink(missing_ok=True)
            folder.rmdir()
    except OSError:
        pass


@contextmanager
def staged_run_dir(output_dir: Path, *, overwrite: bool) -> Iterator[Path]:
    """An empty folder to write the run into; moved to ``output_dir`` when the block ends
    without an exception, removed otherwise."""
    check_output_dir(output_dir, overwrite=overwrite)
    output_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{output_dir.name}.import-", dir=output_dir.parent))
    staging.chmod(_FOLDER_MODE)
    try:
        with hold_run_dir(staging):
            yield staging
            _move_into_place(staging, output_dir)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _move_into_place(staging: Path, output_dir: Path) -> None:
    """``staging`` renamed to ``output_dir``, which it replaces; one line naming the folder
    when the file system refuses."""
    try:
        if output_dir.exists():
            shutil.rmtree(output_dir)
        staging.rename(output_dir)
    except OSError as exc:
        raise RunDirError(
            f"{output_dir}: cannot put the imported run in place: {exc.strerror or exc}"
        ) from None
