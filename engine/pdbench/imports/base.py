"""What an importer is, what it is given and what it returns; the error of a bad source.

::

    PdbenchError
    └── ImportInputError     a source (or the mapping) is wrong: one line naming the file,
                             the line and the column (exit 2); nothing is written
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pdbench.errors import PdbenchError

__all__ = [
    "ImportFunction",
    "ImportInputError",
    "ImportOptions",
    "ImportSummary",
    "Importer",
    "SourceProblem",
    "csv_rows",
]


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


def csv_rows(
    path: Path, *, encoding: str, check_header: Callable[[list[str]], None]
) -> Iterator[tuple[int, list[str], list[str]]]:
    """``(line, header, row)`` of every non-empty row of the CSV file ``path``, once
    ``check_header`` (raising an :class:`ImportInputError`) has accepted its header; a file
    without a header, or a row with another number of fields, fails naming the line."""
    with path.open(newline="", encoding=encoding) as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise ImportInputError("empty file (no header row)", at=SourceProblem(path, 1))
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
