"""Paths as DuckDB reads them: exactly the file named, never a pattern, never SQL.

DuckDB reads a path holding ``*``, ``?`` or ``[`` as a glob pattern (a run folder ``exp[1]``
would read the files of ``exp1``), with escapes of its own inside patterns; and a path put
between quotes in SQL ends the string at its first quote. Folder names are chosen by whoever
hands a run over, so DuckDB is never given one: :func:`duckdb_path` names a file through a
link in a folder of this process's own (``<tmp>/pdbench-paths-XXXX/<n>``), whose path holds
nothing DuckDB or SQL reads as syntax, and :func:`sql_string` quotes any text that goes into
SQL as a string literal. The links are removed when the process ends.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
import threading
from pathlib import Path

from pdbench.errors import RunDirError

__all__ = ["duckdb_path", "plain_path", "sql_string"]

_PLAIN = re.compile(r"[A-Za-z0-9._/+-]+")
"""A path DuckDB reads as itself: no glob character, quote, backslash or space."""
_lock = threading.Lock()
_folder: Path | None = None
_links: dict[Path, Path] = {}
"""Each folder read (resolved) -> its link in :data:`_folder`."""


def plain_path(path: str) -> bool:
    """Whether DuckDB reads ``path`` as the one file it names (and SQL quotes it as is)."""
    return bool(_PLAIN.fullmatch(path))


def sql_string(text: str) -> str:
    """``text`` as an SQL string literal: between single quotes, each quote doubled."""
    return "'" + text.replace("'", "''") + "'"


def duckdb_path(path: Path) -> str:
    """The path DuckDB is to read (or write) ``path`` by: ``path`` itself when it is plain
    (:func:`plain_path`), else the same file through a link of this process's own."""
    path = Path(path).absolute()
    if plain_path(str(path)):
        return str(path)
    if plain_path(path.name):
        return f"{_link(path.parent)}/{path.name}"
    return str(_link(path))


def _link(target: Path) -> Path:
    """A link to ``target`` (a folder, or a file whose own name is not plain), made once."""
    resolved = target.resolve()
    with _lock:
        link = _links.get(resolved)
        if link is None or not link.is_symlink():
            link = _links_folder() / str(len(_links))
            link.unlink(missing_ok=True)
            link.symlink_to(resolved)
            _links[resolved] = link
        return link


def _links_folder() -> Path:
    """This process's folder of links (readable by this user alone), made on first use."""
    global _folder
    if _folder is None:
        folder = Path(tempfile.mkdtemp(prefix="pdbench-paths-"))
        if not plain_path(str(folder)):
            shutil.rmtree(folder, ignore_errors=True)
            raise RunDirError(
                f"the temporary folder {folder.parent} has a name DuckDB would read as a "
                "pattern (a glob character, quote, backslash or space): set TMPDIR to a "
                "plain folder"
            )
        atexit.register(shutil.rmtree, folder, True)
        _folder = folder
    return _folder
