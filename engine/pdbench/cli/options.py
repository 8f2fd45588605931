"""The options of the commands, typed once: ``pdbench run``'s and ``pdbench import``'s, and
the address and ``--print-command`` of the pages ``ui`` and ``audience`` serve."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "Address",
    "ChunkRounds",
    "DbtSources",
    "DryRun",
    "ExecutorOption",
    "ImportFormat",
    "ImportOutputDir",
    "ImportSources",
    "MappingFile",
    "MappingSettings",
    "NoAggregate",
    "NoCache",
    "OutputDir",
    "Overwrite",
    "PrintCommand",
    "Replicates",
    "Resume",
    "RunId",
]

Replicates = Annotated[
    int | None, typer.Option(min=1, help="Replicates per condition (overrides the config).")
]
DryRun = Annotated[
    bool, typer.Option("--dry-run", help="Validate and show the plan; write nothing.")
]
OutputDir = Annotated[
    Path | None, typer.Option(help="Run directory (default: the config's output_dir).")
]
Overwrite = Annotated[bool, typer.Option("--overwrite", help="Replace an existing run directory.")]
NoAggregate = Annotated[
    bool, typer.Option("--no-aggregate", help="Do not build the metrics after the run.")
]
Resume = Annotated[
    bool,
    typer.Option(
        "--resume",
        help="Continue the stopped run of this config: keep finished matches (PD) or "
        "phases (arena), replay the rest.",
    ),
]
NoCache = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")
]
DbtSources = Annotated[
    bool,
    typer.Option(
        "--dbt-sources",
        help="Instead: write dbt's sources (dbt_project/models/staging/_sources.yml) from the "
        "record models.",
    ),
]
ExecutorOption = Annotated[
    str | None, typer.Option(help="local, or dask://HOST:PORT: a Dask scheduler's workers.")
]
ChunkRounds = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="With --executor: rounds per chunk (default: about 4 per worker thread, "
        "50000 to 250000).",
    ),
]

Address = Annotated[
    str, typer.Option(help="Address the page listens on (0.0.0.0: every interface).")
]
PrintCommand = Annotated[
    bool, typer.Option("--print-command", help="Print the Streamlit command, do not run it.")
]

ImportFormat = Annotated[str, typer.Argument(metavar="FORMAT", help="The source's format.")]
ImportSources = Annotated[list[Path], typer.Argument(help="The files or folders to import.")]
ImportOutputDir = Annotated[Path, typer.Option(help="The run directory to write.")]
MappingFile = Annotated[
    Path | None, typer.Option(help="YAML mapping of the source's columns (csv, jsonl).")
]
MappingSettings = Annotated[
    list[str] | None,
    typer.Option("--set", help="KEY=VALUE: a mapping key on the command line (repeatable)."),
]
RunId = Annotated[
    str | None, typer.Option(help="The run's id (default: the output directory's name).")
]
