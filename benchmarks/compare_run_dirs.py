"""Compare two run directories file by file, the way a refactoring must leave them: JSON and
JSONL line by line with the fields that measure time masked, Parquet marts by schema and rows
(in file order) with the same columns masked, anything else byte for byte.

    uv run python benchmarks/compare_run_dirs.py BEFORE_DIR AFTER_DIR [--mask REGEX ...]
        [--rel-tol 1e-12]

``--rel-tol`` forgives float differences in the last bits, for marts whose sums run in
parallel in no fixed order (the arena's bootstrap intervals differ in the 15th digit between
two builds of the same run by the same code).

Prints one line per file (``same bytes``, ``same content``, or what differs) and exits 1 when
a file differs or exists on one side only. Masked by default: keys and columns whose name
ends in ``_at``, ``_ms``, ``_s`` or ``_seconds``, or holds ``latency``, ``elapsed``,
``duration``, ``timestamp``; the manifest's host facts (``git_commit``, ``packages``,
``python``, ``platform``, ``hostname``) and paths (``output_dir``, ``run_dir``); the raw
files' sizes and modification times in ``marts_manifest.json`` (the sizes move with the
digits of a latency; the files themselves are compared); the lock file.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

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


def _parquet_rows(path: Path, mask: re.Pattern[str]) -> tuple[list[str], list[Any]]:
    table = pq.read_table(path)
    schema = [f"{field.name}:{field.type}" for field in table.schema]
    rows = [
        {key: MASKED if mask.search(key) else value for key, value in row.items()}
        for row in table.to_pylist()
    ]
    return schema, rows


REL_TOL = 0.0
"""Relative tolerance for floats (``--rel-tol``); 0: equal to the last bit."""


def _same(old: Any, new: Any) -> bool:
    if REL_TOL and isinstance(old, float) and isinstance(new, float):
        return math.isclose(old, new, rel_tol=REL_TOL) or (math.isnan(old) and math.isnan(new))
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(_same(old[k], new[k]) for k in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_same(a, b) for a, b in zip(old, new, strict=True))
    return old == new


def _first_difference(before: list[Any], after: list[Any]) -> str:
    if len(before) != len(after):
        return f"{len(before)} rows before, {len(after)} after"
    for index, (old, new) in enumerate(zip(before, after, strict=True)):
        if not _same(old, new):
            if isinstance(old, dict) and isinstance(new, dict):
                keys = [key for key in {**old, **new} if not _same(old.get(key), new.get(key))]
                return f"row {index}: {', '.join(keys[:5])} differ"
            return f"row {index} differs"
    return "same"


def compare_file(before: Path, after: Path, mask: re.Pattern[str]) -> str:
    """``same bytes``, ``same content`` or what differs between two versions of one file."""
    if before.read_bytes() == after.read_bytes():
        return "same bytes"
    if before.suffix in (".json", ".jsonl"):
        verdict = _first_difference(_json_lines(before, mask), _json_lines(after, mask))
    elif before.suffix == ".parquet":
        old_schema, old_rows = _parquet_rows(before, mask)
        new_schema, new_rows = _parquet_rows(after, mask)
        if old_schema != new_schema:
            return f"schema differs: {sorted(set(old_schema) ^ set(new_schema))[:6]}"
        verdict = _first_difference(old_rows, new_rows)
    else:
        return "bytes differ"
    return "same content" if verdict == "same" else verdict


def compare_dirs(before: Path, after: Path, mask: re.Pattern[str]) -> list[tuple[str, str]]:
    """One ``(relative path, verdict)`` per file of either directory."""
    names = {
        path.relative_to(root).as_posix()
        for root in (before, after)
        for path in root.rglob("*")
        if path.is_file() and path.name not in IGNORED_FILES
    }
    verdicts = []
    for name in sorted(names):
        old, new = before / name, after / name
        if not old.exists() or not new.exists():
            verdicts.append((name, "only after" if new.exists() else "only before"))
        else:
            verdicts.append((name, compare_file(old, new, mask)))
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--mask", action="append", default=[], help="extra key regex to mask")
    parser.add_argument(
        "--rel-tol", type=float, default=0.0, help="relative tolerance for floats (default 0)"
    )
    args = parser.parse_args(argv)
    global REL_TOL
    REL_TOL = args.rel_tol
    mask = re.compile("|".join(f"(?:{pattern})" for pattern in (*DEFAULT_MASK, *args.mask)))
    verdicts = compare_dirs(args.before, args.after, mask)
    width = max(len(name) for name, _ in verdicts)
    for name, verdict in verdicts:
        print(f"{name.ljust(width)}  {verdict}")
    differing = [name for name, verdict in verdicts if not verdict.startswith("same")]
    print(f"{len(verdicts) - len(differing)} of {len(verdicts)} files the same")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
