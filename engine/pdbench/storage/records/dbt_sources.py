"""dbt's sources, generated from the record models: ``dbt_project/models/staging/_sources.yml``.

One source per game (its :class:`~.files.RecordSource`) and one for what every run writes;
one table per record, its columns in the model's order with their DuckDB types
(:func:`~.columns.duckdb_columns`) and the fields' docstrings as descriptions. Staging models
read a table with ``read_run_source()`` (``dbt_project/macros/run_dir.sql``), which takes the
columns and types from the file. ``pdbench schema --dbt-sources`` writes it; a test holds the
committed file equal to :func:`render_sources`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.storage.records.columns import duckdb_columns
from pdbench.storage.records.files import RecordFile, RecordSource

__all__ = ["SOURCES_FILE", "render_sources", "write_sources"]

SOURCES_FILE = "models/staging/_sources.yml"
"""The file, relative to the dbt project."""

WIDTH = 100
"""Longest line; a longer description is folded (``>``) over several lines."""

_HEADER = """\
version: 2

# Generated from the engine's record models by `uv run pdbench schema --dbt-sources`: edit the
# models (the records a game declares, engine/pdbench/storage/records/ for every run's), not
# this file; tests/unit/test_record_contract.py fails when the two differ. The raw files of a
# run directory (the run directory named by PDBENCH_RUN_DIR), one source table per record.
# Columns, their order and their DuckDB types are those of the models (`pdbench schema
# <record>` prints one), and so are the descriptions. Staging models read a file with
# read_run_source() (macros/run_dir.sql), which takes its columns and types from here.
# meta.required: false reads a file that is not there (yet) as no rows.
sources:
"""

_INDICATORS = set("-?:,[]{}#&*!|>'\"%@`")


def render_sources(sources: Iterable[RecordSource]) -> str:
    """The text of the dbt sources file declaring ``sources``."""
    lines: list[str] = []
    for source in sources:
        lines += [f"  - name: {source.name}"]
        lines += _description(source.description, indent=4)
        lines += ["    tables:"]
        for record in source.records:
            lines += _table(record)
    return _HEADER + "\n".join(lines) + "\n"


def write_sources(sources: Iterable[RecordSource]) -> tuple[Path, bool]:
    """Write the dbt sources file of the project from ``sources``: its path, and whether its
    text changed."""
    path = DBT_PROJECT_DIR / SOURCES_FILE
    text = render_sources(sources)
    changed = not path.is_file() or path.read_text(encoding="utf-8") != text
    if changed:
        path.write_text(text, encoding="utf-8")
    return path, changed


def _table(record: RecordFile) -> list[str]:
    """The lines of one source table."""
    model = record.model
    doc = (model.__doc__ or "").split("\n\n")[0]
    lines = [f"      - name: {record.name}", f"        identifier: {record.file}"]
    lines += _description(doc, indent=8)
    lines += ["        meta:", f"          required: {str(record.required).lower()}"]
    if record.json_format is not None:
        lines += [f"          format: {record.json_format}"]
    lines += ["        columns:"]
    for name, data_type in duckdb_columns(model).items():
        description = model.model_fields[name].description
        if not description:
            raise ValueError(f"{model.__name__}.{name} has no docstring (its description)")
        lines += [f"          - name: {name}", f"            data_type: {data_type}"]
        lines += _description(description, indent=12)
    return lines


def _description(text: str, *, indent: int) -> list[str]:
    """``description: text`` at ``indent``: on one line when it fits and reads as plain YAML,
    else folded (``>``) over lines of at most :data:`WIDTH`."""
    words = text.split()
    flat = " ".join(words)
    one_line = f"{' ' * indent}description: {flat}"
    if len(one_line) <= WIDTH and _plain(flat):
        return [one_line]
    lines = [f"{' ' * indent}description: >"]
    current = ""
    for word in words:
        if current and indent + 2 + len(current) + 1 + len(word) > WIDTH:
            lines.append(f"{' ' * (indent + 2)}{current}")
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(f"{' ' * (indent + 2)}{current}")
    return lines


def _plain(text: str) -> bool:
    """Whether ``text`` reads back as itself written as a plain YAML scalar."""
    return (
        bool(text)
        and text[0] not in _INDICATORS
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
    )
