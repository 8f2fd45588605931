"""An Axelrod tournament's interactions file: ``pdbench import axelrod interactions.csv``.

``axelrod.Tournament.play(filename=...)`` (Axelrod 4.x) writes two rows per match, one from
each player's side::

    Interaction index,Player index,Opponent index,Repetition,Player name,Opponent name,Actions,...
    2,0,1,0,Tit For Tat,Defector,CDDDD,...
    2,1,0,0,Defector,Tit For Tat,DDDDD,...

``Actions`` is the player's moves, ``C``/``D``, one per turn (after noise). The two rows of an
interaction share its index and name each other; the first row's player is agent A. Every
pairing is a condition ``<player>_vs_<opponent>``, every repetition a replicate; both agents
are policies. The file records no game, so the payoffs are Axelrod's default 3/0/5/1 (the
further columns, scores and counts, follow from the actions and are not read).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pdbench.imports.base import (
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
    csv_rows,
)
from pdbench.imports.pd_run import ImportedMatch, import_pd_run
from pdbench.imports.staging import check_output_dir, source_files
from pdbench.number_text import plural
from pdbench.pd.config import PayoffsConfig
from pdbench.storage.schema import ImportRecord

__all__ = ["COLUMNS", "run"]

COLUMNS = (
    "Interaction index",
    "Player index",
    "Opponent index",
    "Player name",
    "Opponent name",
    "Actions",
)
"""The columns read."""


def run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import every interaction of the interactions files ``sources``."""
    check_output_dir(output_dir, overwrite=options.overwrite)
    record = ImportRecord(format="axelrod", sources=source_files(sources))
    return import_pd_run(
        (match for path in sources for match in _matches(path)),
        output_dir,
        options,
        record=record,
        payoffs=PayoffsConfig(),
        said=lambda counts: (
            f"imported {counts['matches']} interactions ({counts['rounds']} turns) from "
            f"{plural(len(sources), 'Axelrod interactions file')} -> {output_dir}"
        ),
    )


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    def check_header(header: list[str]) -> None:
        missing = [column for column in COLUMNS if column not in header]
        if missing:
            raise ImportInputError(
                "not an Axelrod interactions file: no such column",
                at=SourceProblem(path, 1, missing[0]),
            )

    for line, header, row in csv_rows(path, encoding="utf-8", check_header=check_header):
        yield line, dict(zip(header, row, strict=True))


def _matches(path: Path) -> Iterator[ImportedMatch]:
    rows = _rows(path)
    found = False
    for line, first in rows:
        found = True
        second_line, second = next(rows, (None, None))
        if second is None or second["Interaction index"] != first["Interaction index"]:
            raise ImportInputError(
                f"interaction {first['Interaction index']} has one row; each has two (one "
                "per player)",
                at=SourceProblem(path, second_line or line, "Interaction index"),
            )
        if (second["Player index"], second["Opponent index"]) != (
            first["Opponent index"],
            first["Player index"],
        ):
            raise ImportInputError(
                "the two rows of an interaction must name each other as opponents",
                at=SourceProblem(path, second_line, "Opponent index"),
            )
        actions_a = _actions(first["Actions"], SourceProblem(path, line, "Actions"))
        actions_b = _actions(second["Actions"], SourceProblem(path, second_line, "Actions"))
        if len(actions_a) != len(actions_b):
            raise ImportInputError(
                f"{len(actions_b)} turns, the other player's row {len(actions_a)}",
                at=SourceProblem(path, second_line, "Actions"),
            )
        names = (first["Player name"], first["Opponent name"])
        yield ImportedMatch(
            condition=f"{names[0]}_vs_{names[1]}",
            names=names,
            kinds=("policy", "policy"),
            actions_a=actions_a,
            actions_b=actions_b,
            valid=(True, True),
        )
    if not found:
        raise ImportInputError("no interactions", at=SourceProblem(path))


def _actions(text: str, at: SourceProblem) -> list[str]:
    actions = list(text.strip())
    if not actions:
        raise ImportInputError("no turns", at=at)
    wrong = next((action for action in actions if action not in ("C", "D")), None)
    if wrong is not None:
        raise ImportInputError(f"action {wrong!r} is neither C nor D", at=at)
    return actions
