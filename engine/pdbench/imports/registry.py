"""Every format of ``pdbench import``, by name: one line per format.

Each importer module is imported only when its format is used, so a format that needs an
optional package costs nothing to the others.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

from pdbench.errors import ConfigError, unknown
from pdbench.imports.base import Importer, ImportFunction, ImportOptions, ImportSummary

__all__ = ["FORMATS", "importer_named"]


def _lazy(module: str, function: str = "run") -> ImportFunction:
    """``module.function``, imported on the first call."""

    def run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
        importer: ImportFunction = getattr(import_module(f"pdbench.imports.{module}"), function)
        return importer(sources, output_dir, options)

    return run


FORMATS: dict[str, Importer] = {
    importer.name: importer
    for importer in (
        Importer(
            name="csv",
            help="Round-level CSV tables (one row per round), read through a mapping.",
            game="pd",
            run=_lazy("csv_table", "run_csv"),
            takes_mapping=True,
        ),
        Importer(
            name="jsonl",
            help="Round-level JSON lines (one object per round), read through a mapping.",
            game="pd",
            run=_lazy("csv_table", "run_jsonl"),
            takes_mapping=True,
        ),
        Importer(
            name="fontana",
            help="Fontana et al.'s <model>_URNDx_ws10 folders: the model vs URND(alpha).",
            game="pd",
            run=_lazy("fontana"),
        ),
        Importer(
            name="axelrod",
            help="An Axelrod tournament's interactions CSV.",
            game="pd",
            run=_lazy("axelrod"),
        ),
        Importer(
            name="lm-council",
            help=(
                "The Language Model Council's pairwise verdicts, rubric ratings and "
                "completions (JSON lines), as an arena run."
            ),
            game="arena",
            run=_lazy("lm_council"),
        ),
        Importer(
            name="peerrank",
            help=(
                "A PeerRank data folder (phase1_questions_<rev>.json, phase2_answers_<rev>.json, "
                "phase3_rankings_<rev>.json): absolute scores in three modes, as an arena run."
            ),
            game="arena",
            run=_lazy("peerrank"),
        ),
    )
}
"""Format name -> importer, in the order ``pdbench import --help`` lists them."""


def importer_named(name: str) -> Importer:
    """The importer of format ``name``; a one-line error listing the formats otherwise."""
    importer = FORMATS.get(name)
    if importer is None:
        raise ConfigError(unknown("import format", name, FORMATS))
    return importer
