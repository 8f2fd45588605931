"""How the commands' help reads: ``-h`` as well as ``--help``, a flag printed as a plain flag
(``--dry-run``, never ``--dry-run <bool>``), and a few real commands under "Examples" in
every command's help. A game's own commands (:attr:`pdbench.game.Game.commands`) are added
with :func:`command` too, their examples beside them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

__all__ = ["CONTEXT_SETTINGS", "EXAMPLES", "FlagCommand", "FlagGroup", "command", "examples"]

CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"]}

# Commands of the docs, a few per command every game shares: what a person types first (a
# game's own commands keep theirs beside them).
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
    "power": (
        "pdbench power configs/power_urnd.yaml --metric cooperation_rate_a --effect 0.10",
        "pdbench power configs/power_urnd.yaml --effect 0.05 --power 0.9 --simulations 400",
        "pdbench power configs/experiment.yaml --metric payoff_per_round_a --effect 0.5 "
        "--pilot data/runs/demo",
    ),
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
        "pdbench audience data/runs/arena-demo --invite 20",
        "pdbench audience data/runs/arena-demo",
        "pdbench audience data/runs/arena-demo --address 0.0.0.0 --port 8600",
    ),
    "schema": ("pdbench schema", "pdbench schema rounds"),
}


def examples(lines: tuple[str, ...]) -> str:
    """The epilog of a command's help: "Examples:" then one command a line (the help joins
    paragraphs, so each command is a paragraph of its own)."""
    return "\n\n".join(("Examples:", *(f"  {line}" for line in lines)))


def command[F: Callable[..., Any]](
    app: typer.Typer, name: str, *, example_lines: tuple[str, ...], **settings: Any
) -> Callable[[F], F]:
    """``app.command`` for ``name``: ``-h``, plain flags, and ``example_lines`` under its
    help."""
    return app.command(name, cls=FlagCommand, epilog=examples(example_lines), **settings)


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
