"""``pdbench import <format> <source>...``: runs played elsewhere, as ordinary run directories.

A format is one module of this package and one entry of :data:`FORMATS`
(:mod:`pdbench.imports.registry`). The command line knows no format by name: it looks the
format up in the registry, hands it the sources, the output directory and the options the
user gave (:class:`ImportOptions`), prints the :class:`ImportSummary` it returns and then,
unless ``--no-aggregate``, builds the metrics of the run directory with ``pdbench
aggregate``.

Adding a format (e.g. an arena's verdicts):

1. write ``pdbench/imports/<format>.py`` with a function
   ``run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary``
   that reads the sources and writes a run directory of the game it produces;
2. add one :class:`Importer` line to :data:`FORMATS` (name, help text, game, function).

What every importer keeps to:

- **Nothing written on bad input.** The run directory is written into a staging folder
  beside ``output_dir`` and moved into place whole at the end
  (:func:`pdbench.imports.staging.staged_run_dir`); a source that does not parse raises
  :class:`ImportInputError`, one line naming the file, the line and the column (exit 2).
- **Same records as a played run.** Lines go through the record contracts of
  :mod:`pdbench.storage.records` (key order, types); a PD run is written by
  :func:`pdbench.imports.pd_run.write_pd_run`.
- **Provenance.** The manifest says ``source: imported`` and holds an :class:`ImportRecord`:
  the format, every source file's path and sha256, the mapping used.
- **Unknown is null.** What the source never recorded (prompts, replies, tokens, attempts,
  timestamps) is null, and what pdbench shows of it says "not recorded", never 0.
"""

from pdbench.imports.base import (
    Importer,
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
)
from pdbench.imports.registry import FORMATS, importer_named

__all__ = [
    "FORMATS",
    "ImportInputError",
    "ImportOptions",
    "ImportSummary",
    "Importer",
    "SourceProblem",
    "importer_named",
]
