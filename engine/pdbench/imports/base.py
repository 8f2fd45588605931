"""What an importer is, what it is given and what it returns; the error of a bad source;
and how every source is read (:func:`open_source`, :func:`read_source`, :func:`csv_rows`,
:func:`json_value`), so that a file that is not what it should be is one line naming it
whatever the format.

::

    PdbenchError
    └── ImportInputError     a source (or the mapping) is wrong: one line naming the file,
                             the line and the column (exit 2); nothing is written
"""

from __future__ import annotations

import codecs
import csv
import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from pdbench.errors import PdbenchError

__all__ = [
    "ImportFunction",
    "ImportInputError",
    "ImportOptions",
    "ImportSummary",
    "Importer",
    "SourceProblem",
    "csv_rows",
    "json_value",
    "open_source",
    "read_source",
]

MAX_CELL_CHARS = 1 << 27
"""Characters of one CSV cell (128 Mi): a long reasoning trace is data, a cell beyond this is
a file that is not a table (``csv``'s own limit, 128 Ki, is raised to it)."""
_CHUNK = 1 << 20


@dataclass(frozen=True)
class SourceProblem:
    """Where a source is wrong: the file, and (when they apply) its 1-based line and the
    column (a name, e.g. ``answer1``, or a JSON key)."""

    path: Path
    line: int | None = None
    column: str | None = None

    def where(self) -> str:
        """``<file>:<line>: column <column>``, the parts that apply."""
        text = str(self.path)
        if self.line is not None:
            text += f":{self.line}"
        if self.column is not None:
            text += f": column {self.column}"
        return text


class ImportInputError(PdbenchError):
    """A source file or the mapping cannot be imported as it is."""

    exit_code = 2

    def __init__(self, message: str, *, at: SourceProblem | None = None) -> None:
        super().__init__(f"{at.where()}: {message}" if at is not None else message)
        self.at = at


@dataclass(frozen=True)
class ImportOptions:
    """What ``pdbench import`` passes to every importer besides the sources."""

    mapping: Path | None = None
    """``--mapping FILE``: a YAML mapping of the source's columns (formats that take one)."""
    settings: dict[str, str] = field(default_factory=dict)
    """``--set KEY=VALUE``, repeatable: mapping keys given on the command line (they
    override the file's)."""
    run_id: str | None = None
    """``--run-id``: the run's id (default: the output directory's name)."""
    overwrite: bool = False
    """``--overwrite``: replace an existing run directory written by pdbench."""


@dataclass(frozen=True)
class ImportSummary:
    """What an importer wrote."""

    run_dir: Path
    game: str
    counts: dict[str, int]
    """Records written per file, as the manifest's ``counts``."""
    lines: list[str] = field(default_factory=list)
    """What the command prints about the import (before the metrics)."""


ImportFunction = Callable[[list[Path], Path, ImportOptions], ImportSummary]


@dataclass(frozen=True)
class Importer:
    """One format of ``pdbench import``."""

    name: str
    """The format's name on the command line (``csv``, ``fontana``, ...)."""
    help: str
    """One line for ``pdbench import --help``: what the sources are."""
    game: str
    """The game of the run directories it writes (``pd``, ``arena``)."""
    run: ImportFunction
    """``(sources, output_dir, options) -> summary``: reads every source, writes the run
    directory, raises :class:`ImportInputError` on bad input (nothing written then)."""
    takes_mapping: bool = False
    """Whether ``--mapping``/``--set`` apply; other formats refuse them."""


@contextmanager
def open_source(
    path: Path, *, encoding: str = "utf-8", newline: str | None = None
) -> Iterator[TextIO]:
    """``path`` opened as text: the one way an importer opens a source. A byte that is not
    UTF-8, met wherever the block reads it, is an :class:`ImportInputError` naming the file,
    the line and the byte's offset."""
    try:
        with path.open(encoding=encoding, newline=newline) as handle:
            yield handle
    except UnicodeDecodeError:
        raise _not_utf8(path) from None


def read_source(path: Path) -> str:
    """The whole text of the source ``path`` (see :func:`open_source`)."""
    with open_source(path) as handle:
        return handle.read()


def _not_utf8(path: Path) -> ImportInputError:
    """The error of a source that is not UTF-8, at its first undecodable byte."""
    offset, line = 0, 1
    pending = b""
    with path.open("rb") as handle:
        while True:
            chunk = handle.read(_CHUNK)
            data = pending + chunk
            try:
                _, used = codecs.utf_8_decode(data, "strict", not chunk)
            except UnicodeDecodeError as exc:
                return ImportInputError(
                    f"not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset "
                    f"{offset + exc.start} (save the file as UTF-8)",
                    at=SourceProblem(path, line + data.count(b"\n", 0, exc.start)),
                )
            if not chunk:
                break
            line += data.count(b"\n", 0, used)
            offset += used
            pending = data[used:]
    return ImportInputError("not UTF-8 text (save the file as UTF-8)", at=SourceProblem(path))


def csv_rows(
    path: Path, *, encoding: str, check_header: Callable[[list[str]], None]
) -> Iterator[tuple[int, list[str], list[str]]]:
    """``(line, header, row)`` of every non-empty row of the CSV file ``path``, once
    ``check_header`` (raising an :class:`ImportInputError`) has accepted its header; a file
    without a header, a header naming a column twice, a row with another number of fields
    or one ``csv`` cannot read fails naming the line. Cells may be long (up to
    :data:`MAX_CELL_CHARS`)."""
    if csv.field_size_limit() < MAX_CELL_CHARS:
        csv.field_size_limit(MAX_CELL_CHARS)
    with open_source(path, encoding=encoding, newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
            if header is None:
                raise ImportInputError("empty file (no header row)", at=SourceProblem(path, 1))
            _check_unique(path, header)
            check_header(header)
            for row in reader:
                if not row:
                    continue
                if len(row) != len(header):
                    raise ImportInputError(
                        f"{len(row)} fields, the header has {len(header)}",
                        at=SourceProblem(path, reader.line_num),
                    )
                yield reader.line_num, header, row
        except csv.Error as exc:
            raise ImportInputError(
                f"not a CSV table: {exc}", at=SourceProblem(path, reader.line_num)
            ) from None


def _check_unique(path: Path, header: list[str]) -> None:
    """A header names each column once: which of two columns of one name holds the value is
    anyone's guess. Unnamed columns (an exported index, trailing commas) are never read."""
    first: dict[str, int] = {}
    for index, name in enumerate(header, start=1):
        if not name.strip():
            continue
        if name in first:
            raise ImportInputError(
                f"the header names this column twice (fields {first[name]} and {index})",
                at=SourceProblem(path, 1, name),
            )
        first[name] = index


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


class _NotFinite(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return value


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _NotFinite(text)
    return number


def _no_constant(text: str) -> float:
    raise _NotFinite(text)


def json_value(text: str | bytes, path: Path, line: int | None = None) -> Any:
    """The JSON document ``text`` of ``path`` (one line of it, ``line``, for JSON lines).
    What JSON cannot say for sure is refused, one line naming the file: an object naming a
    key twice, ``NaN``, ``Infinity`` and numbers too large for a float."""
    try:
        return json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_float=_finite,
            parse_constant=_no_constant,
        )
    except json.JSONDecodeError as exc:
        where = SourceProblem(path, line if line is not None else exc.lineno)
        raise ImportInputError(
            f"not JSON: {exc.msg} (at character {exc.colno})", at=where
        ) from None
    except _DuplicateKey as exc:
        raise ImportInputError(
            "an object names this key twice", at=SourceProblem(path, line, exc.key)
        ) from None
    except _NotFinite as exc:
        raise ImportInputError(
            f"{exc.text} is not a finite number", at=SourceProblem(path, line)
        ) from None
    except UnicodeDecodeError:
        raise _not_utf8(path) from None
    except (ValueError, RecursionError) as exc:
        raise ImportInputError(f"not JSON: {exc}", at=SourceProblem(path, line)) from None
