"""What ``pdbench import`` needs of the registry: its help text and its options, checked
before any source is read."""

from __future__ import annotations

from pathlib import Path

from pdbench.errors import ConfigError
from pdbench.imports.base import Importer, ImportOptions
from pdbench.imports.registry import FORMATS

__all__ = ["import_help", "import_options"]


def import_help() -> str:
    """The command's help: what it does, then one line per format of the registry."""
    formats = "\\n\\n".join(f"{name}: {importer.help}" for name, importer in FORMATS.items())
    return (
        "Import runs played elsewhere as a run directory (source: imported), then build its "
        "metrics.\\n\\nFormats:\\n\\n" + formats
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
    if not importer.takes_mapping and (mapping is not None or settings):
        raise ConfigError(f"format {importer.name} takes no mapping (drop --mapping/--set)")
    pairs = {}
    for setting in settings:
        key, equals, value = setting.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"--set {setting!r}: give KEY=VALUE")
        pairs[key.strip()] = value.strip()
    return ImportOptions(mapping=mapping, settings=pairs, run_id=run_id, overwrite=overwrite)
