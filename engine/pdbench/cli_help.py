"""How the commands' help reads: ``-h`` as well as ``--help``, a flag printed as a plain flag
(``--dry-run``, never ``--dry-run <bool>``), and a few real commands under "Examples" in
every command's help."""

from __future__ import annotations

from typing import Any

from typer.core import TyperCommand, TyperGroup

__all__ = ["CONTEXT_SETTINGS", "EXAMPLES", "FlagCommand", "FlagGroup", "examples"]

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

# Commands of the docs, a few per command: what a person types first.
EXAMPLES: dict[str, tuple[str, ...]] = {
    "validate": ("pdbench validate configs/experiment.yaml",),
    "run": (
        "pdbench run configs/experiment.yaml",
        "pdbench run configs/experiment.yaml --dry-run",
        "pdbench run configs/experiment.yaml --replicates 2 --no-aggregate",
        "pdbench run configs/experiment.yaml --resume",
    ),
    "import": (
        "pdbench import csv tests/data/import/akata_pd_excerpt.csv "
        "--mapping configs/import/akata_pd.yaml --output-dir data/runs/akata_excerpt",
    ),
    "aggregate": ("pdbench aggregate data/runs/demo", "pdbench aggregate data/runs/arena-demo"),
    "compare": ("pdbench compare data/runs/demo cooperative_llm_vs_alld tft_vs_alld",),
    "compare-runs": (
        "pdbench compare-runs data/runs/gpt35t data/runs/fontana_urnd --metric cooperation_rate_a",
    ),
    "leaderboard": ("pdbench leaderboard data/runs --output-dir data/leaderboard",),
    "report": (
        "pdbench report data/runs/demo",
        "pdbench report data/runs/arena-demo --output arena-demo.html",
        "pdbench report data/leaderboard",
    ),
    "ui": (
        "pdbench ui data/runs/demo",
        "pdbench ui data/runs",
        "pdbench ui data/runs/demo --print-command",
    ),
    "audience": (
        "pdbench audience data/runs/arena-demo",
        "pdbench audience data/runs/arena-demo --address 0.0.0.0 --port 8600",
    ),
    "schema": ("pdbench schema", "pdbench schema rounds"),
    "worker": ("pdbench worker start", "pdbench worker status", "pdbench worker stop"),
}


def examples(command: str) -> str:
    """The epilog of ``command``'s help: "Examples:" then one command a line (the help
    joins paragraphs, so each command is a paragraph of its own)."""
    return "\n\n".join(("Examples:", *(f"  {line}" for line in EXAMPLES[command])))


def _plain_flags(params: list[Any]) -> list[Any]:
    """``params`` with every flag's type hidden: a flag takes no value, so its help shows
    none (typer would print ``<bool>``, and ``--dry-run true`` fails)."""
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""
    return params


class FlagCommand(TyperCommand):
    """A command whose help prints flags (``--help`` too) without a value type."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))


class FlagGroup(TyperGroup):
    """The ``pdbench`` group, its ``--help`` printed as a plain flag."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain_flags(super().get_params(ctx))
