"""``pdbench schema [record]``: the JSON schema of a record of the run directory, the list
of every game's records, or (``--dbt-sources``) dbt's sources file written from them."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pdbench.cli.errors import err, one_line
from pdbench.cli.options import DbtSources
from pdbench.games import record_sources, records
from pdbench.storage.records.dbt_sources import write_sources

__all__ = ["schema"]


def schema(
    record: Annotated[
        str | None, typer.Argument(help="A record, e.g. rounds (without it: list them all).")
    ] = None,
    dbt_sources: DbtSources = False,
) -> None:
    """Print the JSON schema of a record of the run directory, or list the records."""
    if dbt_sources:
        path, changed = write_sources(record_sources())
        typer.echo(f"{'wrote' if changed else 'unchanged'} {path}")
        return
    known = records()
    if record is None:
        width = max(len(name) for name in known)
        for entry in known.values():
            typer.echo(f"{entry.name:<{width}}  {entry.file}")
        return
    if record not in known:
        err(f"error: unknown record {one_line(repr(record))} (known: {', '.join(known)})")
        raise typer.Exit(2)
    typer.echo(json.dumps(known[record].model.model_json_schema(), indent=2))
