"""The empty marts of a run: the one place that says what a mart left out of a build is.

``pdbench aggregate`` leaves out of a run's build the models the run has no input for
(:attr:`pdbench.game.Marts.absent_content`). Their marts must still be there for the viewer,
the summaries and ad-hoc SQL, with the columns a build would give them and no row. The
columns are the compiled models' own: each left-out mart is written from its query with
``limit 0``, over views of what it reads (:mod:`pdbench.dbt_build.execute`), so nothing of
it is computed.
"""

from __future__ import annotations

from pathlib import Path

from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.game import Game

__all__ = ["write_empty_marts"]


def write_empty_marts(run_dir: Path, game: Game, names: list[str]) -> None:
    """Write the marts ``names`` (file names, e.g. ``fingerprints.parquet``) of ``game`` into
    ``run_dir`` with their columns and no row, replacing any file of that name."""
    if not names:
        return
    tag = f"tag:{game.marts.dbt_tag}"  # the game's marts, none of them built
    invoke_dbt(
        DbtRequest("run", run_dir=run_dir, select=tag, exclude=tag, empty_marts=tuple(names))
    )
