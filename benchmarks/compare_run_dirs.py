"""Compare two run directories file by file, the way a refactoring must leave them: JSON and
JSONL line by line with the fields that measure time masked, Parquet marts by schema and rows
(in file order) with the same columns masked, anything else byte for byte.

    uv run python benchmarks/compare_run_dirs.py BEFORE_DIR AFTER_DIR [--mask REGEX ...]
        [--rel-tol 1e-9] [--abs-tol 1e-12] [--null-row-is-empty]

``--rel-tol`` and ``--abs-tol`` forgive float differences in the last bits, for marts whose
sums run in parallel in no fixed order (the arena's bootstrap intervals differ in the 15th
digit between two builds of the same run by the same code) and for values that are rounding
noise around zero (a fit's last change of order 1e-16); two floats are the same when
``math.isclose`` says so with both. ``--null-row-is-empty`` reads a Parquet file whose one row
is NULL in every column as a file with no row: dbt-duckdb's ``external`` materialization
writes that row for a model with no row, where a ``copy (...) to`` writes none.

Prints one line per file: its rows and columns before and after (a Parquet file's rows and
columns, a JSONL file's lines and keys, a JSON file 1 row), and ``same bytes``, ``same
content`` (equal once masked), ``same within tolerance`` (with how many values differ and by
how much at most) or what differs; then how many files are in each case. Exits 1 when a file
differs or exists on one side only. Masked by default: keys and columns whose name ends in
``_at``, ``_ms``, ``_s`` or ``_seconds``, or holds ``latency``, ``elapsed``, ``duration``,
``timestamp``; Parquet columns of a date or time type, whatever their name; the manifest's
host facts (``git_commit``, ``packages``, ``python``, ``platform``, ``hostname``) and paths
(``output_dir``, ``run_dir``); the raw files' sizes and modification times in
``marts_manifest.json`` (the sizes move with the digits of a latency; the files themselves
are compared); the lock file.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

DEFAULT_MASK = (
    r"(_at|_ms|_s|_seconds)$",
    r"latency|elapsed|duration|timestamp",
    r"^(git_commit|git_dirty|packages|package_versions|python|python_version|platform"
    r"|hostname|output_dir|run_dir)$",
)
IGNORED_FILES = {".pdbench.lock"}
MASKED = "<masked>"


def _masked(value: Any, mask: re.Pattern[str]) -> Any:
    """``value`` (parsed JSON) with every key ``mask`` matches replaced by a marker."""
    if isinstance(value, dict):
        if "built_from" in value:  # marts_manifest.json: [size, mtime_ns] per raw file
            value = {**value, "built_from": sorted(value["built_from"])}
        return {
            key: MASKED if mask.search(key) else _masked(item, mask) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_masked(item, mask) for item in value]
    return value


def _json_lines(path: Path, mask: re.Pattern[str]) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return [_masked(json.loads(text), mask)]
    return [_masked(json.loads(line), mask) for line in text.splitlines() if line.strip()]


def _is_time(kind: pa.DataType) -> bool:
    return any(
        bool(test(kind))
        for test in (
            pa.types.is_timestamp,
            pa.types.is_date,
            pa.types.is_time,
            pa.types.is_duration,
        )
    )


def _parquet_rows(path: Path, mask: re.Pattern[str]) -> tuple[list[str], list[Any]]:
    table = pq.read_table(path)
    schema = [f"{column.name}:{column.type}" for column in table.schema]
    masked = {
        column.name for column in table.schema if mask.search(column.name) or _is_time(column.type)
    }
    rows = [
        {key: MASKED if key in masked else value for key, value in row.items()}
        for row in table.to_pylist()
    ]
    return schema, rows


def shape(path: Path) -> str:
    """``<rows>x<columns>`` of a Parquet, JSON or JSONL file (columns: the distinct keys of
    its lines), ``-`` for any other file or one that does not parse."""
    try:
        if path.suffix == ".parquet":
            meta = pq.read_metadata(path)
            return f"{meta.num_rows}x{meta.num_columns}"
        if path.suffix in (".json", ".jsonl"):
            lines = _json_lines(path, re.compile(r"(?!)"))
            keys = {key for line in lines if isinstance(line, dict) for key in line}
            return f"{len(lines)}x{len(keys)}"
    except (OSError, ValueError, pa.ArrowException):
        pass
    return "-"


@dataclass
class Tolerance:
    """How far two floats may be apart and still be the same, and what was forgiven."""

    rel: float = 0.0
    abs: float = 0.0
    seen: list[tuple[float, float]] = field(default_factory=list)
    """The pairs of floats forgiven since the last :meth:`reset`."""

    def same(self, old: Any, new: Any) -> bool:
        if isinstance(old, float) and isinstance(new, float):
            if old == new or (math.isnan(old) and math.isnan(new)):
                return True
            if (self.rel or self.abs) and math.isclose(
                old, new, rel_tol=self.rel, abs_tol=self.abs
            ):
                self.seen.append((old, new))
                return True
            return False
        if isinstance(old, dict) and isinstance(new, dict):
            return old.keys() == new.keys() and all(self.same(old[k], new[k]) for k in old)
        if isinstance(old, list) and isinstance(new, list):
            return len(old) == len(new) and all(
                self.same(a, b) for a, b in zip(old, new, strict=True)
            )
        return bool(old == new)

    def reset(self) -> None:
        self.seen.clear()

    def summary(self) -> str:
        """What the last comparison forgave: how many values, by how much at most."""
        largest_abs = max(abs(a - b) for a, b in self.seen)
        largest_rel = max(abs(a - b) / max(abs(a), abs(b)) for a, b in self.seen)
        return (
            f"same within tolerance ({len(self.seen)} of the values differ; at most"
            f" {largest_rel:.1e} relative, {largest_abs:.1e} absolute)"
        )


def _first_difference(before: list[Any], after: list[Any], tolerance: Tolerance) -> str:
    if len(before) != len(after):
        return f"{len(before)} rows before, {len(after)} after"
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if not tolerance.same(old, new):
            if isinstance(old, dict) and isinstance(new, dict):
                keys = [
                    key for key in {**old, **new} if not tolerance.same(old.get(key), new.get(key))
                ]
                return f"row {index}: {', '.join(keys[:5])} differ"
            return f"row {index} differs"
    return "same"


def _is_null_row(rows: list[Any]) -> bool:
    return len(rows) == 1 and all(value is None for value in rows[0].values())


def compare_file(
    before: Path,
    after: Path,
    mask: re.Pattern[str],
    tolerance: Tolerance,
    null_row_is_empty: bool = False,
) -> str:
    """``same bytes``, ``same content``, ``same within tolerance (...)`` or what differs
    between two versions of one file; with ``null_row_is_empty`` a Parquet file's one
    all-NULL row counts as no row."""
    if before.read_bytes() == after.read_bytes():
        return "same bytes"
    tolerance.reset()
    note = ""
    if before.suffix in (".json", ".jsonl"):
        verdict = _first_difference(_json_lines(before, mask), _json_lines(after, mask), tolerance)
    elif before.suffix == ".parquet":
        old_schema, old_rows = _parquet_rows(before, mask)
        new_schema, new_rows = _parquet_rows(after, mask)
        if old_schema != new_schema:
            return f"schema differs: {sorted(set(old_schema) ^ set(new_schema))[:6]}"
        if null_row_is_empty and _is_null_row(old_rows) != _is_null_row(new_rows):
            side = "before" if _is_null_row(old_rows) else "after"
            note = f" (the all-NULL row {side} read as no row)"
            old_rows = [] if _is_null_row(old_rows) else old_rows
            new_rows = [] if _is_null_row(new_rows) else new_rows
        verdict = _first_difference(old_rows, new_rows, tolerance)
    else:
        return "bytes differ"
    if verdict != "same":
        return verdict
    return (tolerance.summary() if tolerance.seen else "same content") + note


def compare_dirs(
    before: Path,
    after: Path,
    mask: re.Pattern[str],
    tolerance: Tolerance,
    null_row_is_empty: bool = False,
) -> list[tuple[str, str, str, str]]:
    """One ``(relative path, shape before, shape after, verdict)`` per file of either
    directory."""
    names = {
        path.relative_to(root).as_posix()
        for root in (before, after)
        for path in root.rglob("*")
        if path.is_file() and path.name not in IGNORED_FILES
    }
    verdicts = []
    for name in sorted(names):
        old, new = before / name, after / name
        old_shape = shape(old) if old.exists() else "absent"
        new_shape = shape(new) if new.exists() else "absent"
        if not old.exists() or not new.exists():
            verdict = "only after" if new.exists() else "only before"
        else:
            verdict = compare_file(old, new, mask, tolerance, null_row_is_empty)
        verdicts.append((name, old_shape, new_shape, verdict))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--mask", action="append", default=[], help="extra key regex to mask")
    parser.add_argument(
        "--rel-tol", type=float, default=0.0, help="relative tolerance for floats (default 0)"
    )
    parser.add_argument(
        "--abs-tol", type=float, default=0.0, help="absolute tolerance for floats (default 0)"
    )
    parser.add_argument(
        "--null-row-is-empty",
        action="store_true",
        help="read a Parquet file whose one row is all NULL as a file with no row",
    )
    args = parser.parse_args(argv)
    for folder in (args.before, args.after):
        if not folder.is_dir():
            parser.error(f"{folder}: not a directory")
    tolerance = Tolerance(rel=args.rel_tol, abs=args.abs_tol)
    mask = re.compile("|".join(f"(?:{pattern})" for pattern in (*DEFAULT_MASK, *args.mask)))
    verdicts = compare_dirs(args.before, args.after, mask, tolerance, args.null_row_is_empty)
    header = ("file", "before", "after", "verdict")
    widths = [max(len(row[i]) for row in (header, *verdicts)) for i in range(3)]
    for row in (header, *verdicts):
        print(
            "  ".join(
                [*(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True)), row[3]]
            )
        )
    counts = {
        case: sum(verdict.startswith(case) for *_, verdict in verdicts)
        for case in ("same bytes", "same content", "same within tolerance")
    }
    differing = len(verdicts) - sum(counts.values())
    print(
        f"{len(verdicts)} files: {counts['same bytes']} same bytes,"
        f" {counts['same content']} same content,"
        f" {counts['same within tolerance']} same within tolerance, {differing} differ"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
