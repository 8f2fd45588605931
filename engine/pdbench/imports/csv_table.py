"""Round-level tables: ``pdbench import csv|jsonl <file>... --mapping FILE``.

One row (CSV) or one object (JSON lines) per round; the mapping
(:mod:`pdbench.imports.mapping`) says which column holds the round, the agents, their actions
and, optionally, their payoffs, the match and the condition. Rows are read in order; a match
is the rows of one match id, or, without a match column, the rows from a ``round`` of 1 to the
row before the next one. Every match's rounds must be 1..n in order, its agents the same, and
its recorded payoffs one payoff table (each pair of actions always paid the same); any row
that breaks this, or does not parse, is one error naming the file, the line and the column.
Recorded payoffs make one table for the whole run, the mapping's or the one they imply
(:mod:`pdbench.imports.recorded_payoffs`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pdbench.config.base import MAX_PAYOFF
from pdbench.imports.base import (
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
    csv_rows,
    json_value,
    open_source,
)
from pdbench.imports.mapping import TableMapping, load_mapping
from pdbench.imports.pd_run import ImportedMatch, import_pd_run
from pdbench.imports.recorded_payoffs import RecordedPayoffs
from pdbench.imports.staging import check_output_dir, source_files
from pdbench.number_text import plural
from pdbench.pd.config import PayoffsConfig
from pdbench.storage.schema import ImportRecord

__all__ = ["run_csv", "run_jsonl"]

Row = Callable[[str], Any]
"""A row of the source: column name -> its value (raises KeyError when absent)."""


def run_csv(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import CSV files (a header row, then one row per round)."""
    return _run("csv", sources, output_dir, options, _csv_rows)


def run_jsonl(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import JSON-lines files (one object per round)."""
    return _run("jsonl", sources, output_dir, options, _jsonl_rows)


def _run(
    name: str,
    sources: list[Path],
    output_dir: Path,
    options: ImportOptions,
    rows: Callable[[Path, TableMapping], Iterator[tuple[int, Row]]],
) -> ImportSummary:
    mapping = load_mapping(options.mapping, options.settings)
    check_output_dir(output_dir, overwrite=options.overwrite)
    files = source_files(sources)
    record = ImportRecord(
        format=name, sources=files, mapping=mapping.model_dump(mode="json", exclude_none=True)
    )
    recorded = RecordedPayoffs(named=mapping.payoffs) if mapping.payoff_a is not None else None
    matches = (
        match
        for path in sources
        for match in _matches(path, rows(path, mapping), mapping, recorded)
    )
    return import_pd_run(
        matches,
        output_dir,
        options,
        record=record,
        payoffs=recorded.table if recorded is not None else mapping.payoffs or PayoffsConfig(),
        said=lambda counts: (
            f"imported {counts['matches']} matches ({counts['rounds']} rounds) from "
            f"{plural(len(sources), f'{name} file')} -> {output_dir}"
        ),
    )


# ---------------------------------------------------------------------------------------------
# reading rows


def _csv_rows(path: Path, mapping: TableMapping) -> Iterator[tuple[int, Row]]:
    positions: dict[str, int] = {}

    def check_header(header: list[str]) -> None:
        positions.update({column: index for index, column in enumerate(header)})
        for key, column in mapping.columns().items():
            if column not in positions:
                raise ImportInputError(
                    f"no column {column!r} (mapped as {key}; the header has {', '.join(header)})",
                    at=SourceProblem(path, 1, column),
                )

    for line, _, row in csv_rows(path, encoding="utf-8-sig", check_header=check_header):
        yield line, _row_reader(row, positions)


def _row_reader(row: list[str], positions: dict[str, int]) -> Row:
    """The cell of ``row`` under a header column."""
    return lambda column: row[positions[column]]


def _jsonl_rows(path: Path, mapping: TableMapping) -> Iterator[tuple[int, Row]]:
    columns = list(mapping.columns().values())
    with open_source(path) as handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            value = json_value(text, path, number)
            if not isinstance(value, dict):
                raise ImportInputError("not a JSON object", at=SourceProblem(path, number))
            missing = [column for column in columns if column not in value]
            if missing:
                raise ImportInputError("no such key", at=SourceProblem(path, number, missing[0]))
            yield number, value.__getitem__


# ---------------------------------------------------------------------------------------------
# rows -> matches


@dataclass
class _Match:
    key: str
    condition: str
    names: tuple[str, str]
    actions_a: list[str] = field(default_factory=list)
    actions_b: list[str] = field(default_factory=list)
    payoffs_a: list[float] = field(default_factory=list)
    payoffs_b: list[float] = field(default_factory=list)
    paid: dict[tuple[str, str], tuple[float, float, int]] = field(default_factory=dict)
    """Pair of actions -> the payoffs first recorded for it, and that line."""


@dataclass(frozen=True)
class _Round:
    line: int
    number: int
    match_key: str | None
    condition: str
    names: tuple[str, str]
    actions: tuple[str, str]
    payoffs: tuple[float, float] | None


def _matches(
    path: Path,
    rows: Iterator[tuple[int, Row]],
    mapping: TableMapping,
    recorded: RecordedPayoffs | None,
) -> Iterator[ImportedMatch]:
    """The matches of one file, in the order they start; ``recorded`` checks the payoffs
    the rows record (when the mapping reads them)."""
    open_matches: dict[str, _Match] = {}
    current: _Match | None = None
    found = False
    for line, row in rows:
        found = True
        parsed = _round(path, line, row, mapping)
        if mapping.match is None:
            if parsed.number == 1 and current is not None:
                yield _finished(current, mapping)
                current = None
            current = _extend(path, parsed, current, mapping, recorded)
        else:
            key = parsed.match_key or ""
            open_matches[key] = _extend(path, parsed, open_matches.get(key), mapping, recorded)
    if not found:
        raise ImportInputError("no rounds", at=SourceProblem(path))
    if current is not None:
        yield _finished(current, mapping)
    for match in open_matches.values():
        yield _finished(match, mapping)


def _round(path: Path, line: int, row: Row, mapping: TableMapping) -> _Round:
    def value(key: str) -> Any:
        return row(getattr(mapping, key))

    def at(key: str) -> SourceProblem:
        return SourceProblem(path, line, getattr(mapping, key))

    number = _integer(value("round"), at("round"))
    names = (
        str(value("agent_a")) if mapping.agent_a else str(mapping.agent_a_name),
        str(value("agent_b")) if mapping.agent_b else str(mapping.agent_b_name),
    )
    actions = (
        _action(value("action_a"), mapping, at("action_a")),
        _action(value("action_b"), mapping, at("action_b")),
    )
    payoffs = None
    if mapping.payoff_a is not None:
        payoffs = (
            _number(value("payoff_a"), at("payoff_a")),
            _number(value("payoff_b"), at("payoff_b")),
        )
    condition = str(value("condition")) if mapping.condition else f"{names[0]}_vs_{names[1]}"
    match_key = str(value("match")) if mapping.match else None
    return _Round(line, number, match_key, condition, names, actions, payoffs)


def _extend(
    path: Path,
    parsed: _Round,
    match: _Match | None,
    mapping: TableMapping,
    recorded: RecordedPayoffs | None,
) -> _Match:
    """``match`` with the round ``parsed`` added (a new match when None); the round must be
    the next one, of the same agents and condition, paid by the run's one table."""
    at = SourceProblem(path, parsed.line, mapping.round)
    if match is None:
        if parsed.number != 1:
            raise ImportInputError(
                f"a match starts at round {parsed.number}: a match's rounds must be 1..n",
                at=at,
            )
        match = _Match(key=parsed.match_key or "", condition=parsed.condition, names=parsed.names)
    elif parsed.number <= len(match.actions_a):
        raise ImportInputError(f"duplicate round {parsed.number} in its match", at=at)
    elif parsed.number != len(match.actions_a) + 1:
        raise ImportInputError(
            f"round {parsed.number} follows round {len(match.actions_a)}: a match's rounds "
            "must be 1..n",
            at=at,
        )
    if parsed.names != match.names:
        column = mapping.agent_a if parsed.names[0] != match.names[0] else mapping.agent_b
        raise ImportInputError(
            f"the agents change within a match ({' vs '.join(match.names)} before)",
            at=SourceProblem(path, parsed.line, column),
        )
    if parsed.condition != match.condition:
        raise ImportInputError(
            f"the condition changes within a match ({match.condition!r} before)",
            at=SourceProblem(path, parsed.line, mapping.condition),
        )
    match.actions_a.append(parsed.actions[0])
    match.actions_b.append(parsed.actions[1])
    if parsed.payoffs is not None:
        _check_one_table(path, parsed, match, mapping)
        if recorded is not None:
            at = SourceProblem(path, parsed.line, mapping.payoff_a)
            recorded.check(parsed.actions, parsed.payoffs, at)
        match.payoffs_a.append(parsed.payoffs[0])
        match.payoffs_b.append(parsed.payoffs[1])
    return match


def _check_one_table(path: Path, parsed: _Round, match: _Match, mapping: TableMapping) -> None:
    assert parsed.payoffs is not None
    first = match.paid.setdefault(parsed.actions, (*parsed.payoffs, parsed.line))
    if first[:2] != parsed.payoffs:
        cell = "".join(parsed.actions)
        raise ImportInputError(
            f"mixed payoff tables in one match: {cell} paid {first[0]:g}/{first[1]:g} at line "
            f"{first[2]}, {parsed.payoffs[0]:g}/{parsed.payoffs[1]:g} here",
            at=SourceProblem(path, parsed.line, mapping.payoff_a),
        )


def _finished(match: _Match, mapping: TableMapping) -> ImportedMatch:
    kinds = tuple("policy" if name in mapping.policies else "llm" for name in match.names)
    recorded = bool(match.payoffs_a)
    return ImportedMatch(
        condition=match.condition,
        names=match.names,
        kinds=(kinds[0], kinds[1]),
        actions_a=match.actions_a,
        actions_b=match.actions_b,
        payoffs_a=match.payoffs_a if recorded else None,
        payoffs_b=match.payoffs_b if recorded else None,
        valid=(
            True if kinds[0] == "policy" else None,
            True if kinds[1] == "policy" else None,
        ),
    )


def _action(label: Any, mapping: TableMapping, at: SourceProblem) -> str:
    action = mapping.actions.get(str(label).strip()) if label is not None else None
    if action is None:
        raise ImportInputError(
            f"action {label!r} is not in the mapping (actions: "
            f"{', '.join(f'{k}: {v}' for k, v in mapping.actions.items())})",
            at=at,
        )
    return action


def _read_as[N: (int, float)](value: Any, kind: Callable[[str], N]) -> N | None:
    """``value``'s text read by ``kind`` (``int``, ``float``); None for a bool or a misfit."""
    if isinstance(value, bool):
        return None
    try:
        return kind(str(value).strip())
    except ValueError:
        return None


def _integer(value: Any, at: SourceProblem) -> int:
    number = _read_as(value, int)
    if number is None or number < 1:
        raise ImportInputError(f"round {value!r} is not a whole number >= 1", at=at)
    return number


def _number(value: Any, at: SourceProblem) -> float:
    """A payoff: a finite number no larger than a config's payoffs may be
    (:data:`~pdbench.config.base.MAX_PAYOFF`), so that running totals stay finite."""
    number = _read_as(value, float)
    if number is None:
        raise ImportInputError(f"payoff {value!r} is not a number", at=at)
    if not math.isfinite(number):
        raise ImportInputError(f"payoff {value!r} is not a finite number", at=at)
    if abs(number) > MAX_PAYOFF:
        raise ImportInputError(
            f"payoff {value!r} is outside -{MAX_PAYOFF:g}..{MAX_PAYOFF:g}", at=at
        )
    return number
