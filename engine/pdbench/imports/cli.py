"""What ``pdbench import`` needs of the registry: its help text and its options, checked
before any source is read; then the import itself, holding the output directory's run lock
from start to end (as ``pdbench run`` does), its sources checked to be distinct."""

from __future__ import annotations

from pathlib import Path

from pdbench.config.base import run_id_problem
from pdbench.errors import ConfigError
from pdbench.imports.base import Importer, ImportOptions, ImportSummary
from pdbench.imports.registry import FORMATS, importer_named
from pdbench.imports.staging import distinct_sources, held_output_dir

__all__ = ["import_help", "import_options", "run_import"]


def import_help() -> str:
    """The command's help: what it does, then one line per format of the registry."""
    formats = "\n\n".join(f"{name}: {importer.help}" for name, importer in FORMATS.items())
    return (
        "Import runs played elsewhere as a run directory (source: imported), then build its "
        "metrics.\n\nFormats:\n\n" + formats
    )


def import_options(
    importer: Importer,
    *,
    mapping: Path | None,
    settings: list[str],
    run_id: str | None,
    overwrite: bool,
) -> ImportOptions:
    """The options of ``pdbench import`` for ``importer``; ``--mapping`` and ``--set`` are
    refused by formats that take no mapping, and a ``--set`` without ``=`` is refused."""
    if run_id is not None:
        problem = run_id_problem(run_id)
        if problem is not None:
            raise ConfigError(f"{run_id!r}: {problem}", field="--run-id")
    if not importer.takes_mapping and (mapping is not None or settings):
        raise ConfigError(f"format {importer.name} takes no mapping (drop --mapping/--set)")
    pairs = {}
    for setting in settings:
        key, equals, value = setting.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"--set {setting!r}: give KEY=VALUE")
        pairs[key.strip()] = value.strip()
    return ImportOptions(mapping=mapping, settings=pairs, run_id=run_id, overwrite=overwrite)


def run_import(
    format_name: str,
    sources: list[Path],
    output_dir: Path,
    *,
    mapping: Path | None,
    settings: list[str],
    run_id: str | None,
    overwrite: bool,
) -> ImportSummary:
    """``pdbench import``: the format's importer, run with the options checked first, the
    sources distinct, and the output directory's run lock held throughout."""
    importer = importer_named(format_name)
    options = import_options(
        importer, mapping=mapping, settings=settings, run_id=run_id, overwrite=overwrite
    )
    if run_id is None:
        problem = run_id_problem(output_dir.name)
        if problem is not None:
            raise ConfigError(
                f"the output directory's name {output_dir.name!r} is the run id by default, "
                f"and {problem}: give --run-id",
                path=output_dir,
            )
    distinct_sources(sources)
    with held_output_dir(output_dir, overwrite=overwrite):
        return importer.run(sources, output_dir, options)
