"""The arena's own commands of ``pdbench`` (:attr:`pdbench.game.Game.commands`):
``leaderboard``, its players ranked across tournaments (a series, :mod:`pdbench.arena.series`),
and ``audience``, the page where people score a run's answers (:mod:`pdbench.arena.audience`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pdbench.cli.errors import err, one_line, user_errors
from pdbench.cli.help import EXAMPLES, command
from pdbench.cli.options import Address, PrintCommand
from pdbench.pages import audience_command, serve

__all__ = ["add_commands"]


def leaderboard(
    sources: Annotated[
        list[Path],
        typer.Argument(
            help="Arena run directories, or folders holding them (every arena run inside)."
        ),
    ],
    output_dir: Annotated[
        Path, typer.Option(help="Folder of the series' files and marts (rebuilt each time).")
    ] = Path("data/leaderboard"),
) -> None:
    """Rank arena players across tournaments: each one's adjusted score, trend and consistency."""
    from pdbench.arena.series import build_series, summary_lines

    with user_errors():
        series = build_series(sources, output_dir)
    for line in series.skipped:
        err(f"skipped {one_line(line)}")
    for line in summary_lines(series):
        typer.echo(line)


def audience(
    run_dir: Annotated[
        Path, typer.Argument(help="An arena run directory written by `pdbench run`.")
    ],
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port of the page.")] = 8502,
    address: Address = "127.0.0.1",
    print_command: PrintCommand = False,
    invite: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=10_000,
            help="Instead: issue this many invite links, one per voter, print them and exit "
            "(the page takes votes only through them).",
        ),
    ] = None,
    link_base: Annotated[
        str | None,
        typer.Option(
            help="The page's address as voters reach it, for the invite links "
            "(default: http://ADDRESS:PORT)."
        ),
    ] = None,
) -> None:
    """Serve the audience page: people score the run's answers, blinded, 0..10, through the
    invite links `--invite` prints; the votes go to audience_votes.jsonl, the public-opinion
    scores come from `pdbench aggregate`."""
    from pdbench.arena.audience.ballot import open_audience_run
    from pdbench.arena.audience.invites import invitation_lines, no_invite_line, page_url

    with user_errors():
        open_audience_run(run_dir)
        if invite is not None:
            links, note = invitation_lines(
                run_dir, invite, base_url=link_base or page_url(address, port)
            )
            typer.echo("\n".join(links))
            err(note)
            return
        if (warning := no_invite_line(run_dir)) is not None:
            err(f"warning: {warning}")
    command = audience_command(run_dir, port=port, address=address)
    serve(command, print_command=print_command)


def add_commands(app: typer.Typer) -> None:
    """Add ``leaderboard`` and ``audience`` to ``app``."""
    command(
        app,
        "leaderboard",
        example_lines=("pdbench leaderboard data/runs --output-dir data/leaderboard",),
    )(leaderboard)
    command(app, "audience", example_lines=EXAMPLES["audience"])(audience)
