"""The ``pdbench`` command: validate, run, import, aggregate, then each game's own commands
(:attr:`pdbench.game.Game.commands`: the PD's compare and compare-runs, the arena's
leaderboard), then power, report, ui, audience, schema.

A user mistake (bad config, missing file, existing run directory) ends with exit code 2 and
one line ``error: <file>: <field>: <message>`` on stderr, never a traceback, and leaves no run
directory behind.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from pdbench.cli import run_setup
from pdbench.cli.errors import err as _err
from pdbench.cli.errors import user_errors as _user_errors
from pdbench.cli.help import CONTEXT_SETTINGS, EXAMPLES, FlagGroup, command
from pdbench.cli.options import (
    Address,
    ChunkRounds,
    DryRun,
    ExecutorOption,
    ImportFormat,
    ImportOutputDir,
    ImportSources,
    MappingFile,
    MappingSettings,
    NoAggregate,
    NoCache,
    OutputDir,
    Overwrite,
    PrintCommand,
    Replicates,
    Resume,
    RunId,
)
from pdbench.cli.power import power
from pdbench.cli.schemas import schema
from pdbench.config.loader import LoadedConfig
from pdbench.errors import RunDirError
from pdbench.game import Game, PlayOptions, RunResult, imported
from pdbench.games import GAMES, load_config
from pdbench.imports.cli import import_help, run_import
from pdbench.pages import AUDIENCE_APP, STREAMLIT_APP, audience_command, serve, streamlit_command
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles

__all__ = [
    "AUDIENCE_APP",
    "STREAMLIT_APP",
    "app",
    "audience_command",
    "build_app",
    "main",
    "streamlit_command",
]

EXIT_INTERRUPTED = 130


def _command[F: Callable[..., Any]](
    app: typer.Typer, name: str, **settings: Any
) -> Callable[[F], F]:
    """``app.command`` for ``name``: ``-h``, plain flags, and its examples under its help."""
    return command(app, name, example_lines=EXAMPLES[name], **settings)


def _load(config: Path) -> tuple[LoadedConfig, Game]:
    loaded = load_config(config)
    for warning in loaded.warnings:
        _err(f"warning: {warning}")
    return loaded, GAMES[loaded.config.game]


def _checked(config: Path, *, keys: bool = True) -> tuple[LoadedConfig, Game]:
    """The config, after every check ``validate`` makes and ``run`` relies on (schema, refs,
    every file it names, defaults included, and providers; their keys with ``keys``): the
    one function both commands call, so that a config ``validate`` passes is one ``run``
    can start."""
    loaded, game = _load(config)
    game.check_providers(loaded, keys=keys)
    return loaded, game


def validate(
    config: Annotated[Path, typer.Argument(help="The experiment YAML file.")],
) -> None:
    """Check a config: schema, refs and overrides, prompt and persona files, providers."""
    with _user_errors():
        loaded, game = _checked(config)
        lines = game.summary_lines(loaded, run_dir=game.run_dir(loaded, None))
    typer.echo(f"ok: {loaded.path} (game {game.name})")
    for line in lines:
        typer.echo(line)


def run(
    config: Annotated[Path, typer.Argument(help="The experiment YAML file.")],
    replicates: Replicates = None,
    dry_run: DryRun = False,
    output_dir: OutputDir = None,
    overwrite: Overwrite = False,
    no_aggregate: NoAggregate = False,
    resume: Resume = False,
    no_cache: NoCache = False,
    executor: ExecutorOption = None,
    chunk_rounds: ChunkRounds = None,
) -> None:
    """Play the experiment (PD: every condition x replicate; arena: the tournament) and write
    the run directory."""
    with _user_errors():
        loaded, game = _checked(config, keys=not dry_run)
        if replicates is not None:
            loaded = game.with_replicates(loaded, replicates)
        cluster = run_setup.executor(game, loaded, executor, chunk_rounds=chunk_rounds)
        run_dir = game.run_dir(loaded, output_dir)
        if resume and overwrite:
            raise RunDirError("--resume continues a run directory; --overwrite replaces it")
        if dry_run:
            run_setup.print_plan(game, loaded, run_dir=run_dir, overwrite=overwrite, resume=resume)
            return
        if not (overwrite or resume) and run_setup.report_finished(run_dir, loaded.config):
            return
        if not no_aggregate or game.needs_dbt_while_playing(loaded):
            _prepare_dbt()
        options = PlayOptions(
            output_dir=output_dir,
            overwrite=overwrite,
            resume=resume,
            use_cache=not no_cache,
            executor=cluster,
            chunk_rounds=chunk_rounds,
        )
        result = _play(game, loaded, options=options, run_dir=run_dir)
        typer.echo(game.result_line(result))
        if not no_aggregate:
            _aggregate(result.run_dir)


def _play(game: Game, loaded: LoadedConfig, *, options: PlayOptions, run_dir: Path) -> RunResult:
    """``game.play`` with its progress on stderr (:mod:`pdbench.cli.progress`): a bar per
    stage on a terminal, a line every few matches or calls elsewhere."""
    from dataclasses import replace

    from pdbench.cli.progress import RunProgress

    with RunProgress(run_dir) as on_progress:
        try:
            return game.play(
                loaded, options=replace(options, on_progress=on_progress, on_line=_err)
            )
        except KeyboardInterrupt:
            _err(f"interrupted: {run_dir} is marked interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None


def _prepare_dbt() -> None:
    """Compile the dbt project now, if it changed since its last compilation, while the
    games are played."""
    from pdbench.dbt_build.invoke import prepare_dbt

    prepare_dbt()


def _aggregate(run_dir: Path, *, unit_tests: bool = False) -> None:
    from pdbench.aggregate import aggregate_run
    from pdbench.cli.progress import RunProgress

    checks = "unit and data tests" if unit_tests else "data tests"

    def announce(line: str) -> None:
        _err(line.replace("with dbt...", f"with dbt (models and {checks})..."))

    try:
        with RunProgress(run_dir, calls=False) as on_progress:
            summary = aggregate_run(
                run_dir, unit_tests=unit_tests, on_start=announce, on_progress=on_progress
            )
    except KeyboardInterrupt:
        _err(f"interrupted: the metrics of {run_dir} are incomplete (`pdbench aggregate` again)")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    typer.echo(summary.text)


def import_(
    format_name: ImportFormat,
    sources: ImportSources,
    output_dir: ImportOutputDir,
    no_aggregate: NoAggregate = False,
    mapping: MappingFile = None,
    settings: MappingSettings = None,
    run_id: RunId = None,
    overwrite: Overwrite = False,
) -> None:
    with _user_errors():
        summary = run_import(
            format_name, sources, output_dir, mapping=mapping, settings=settings or [],
            run_id=run_id, overwrite=overwrite,
        )  # fmt: skip
    for line in summary.lines:
        typer.echo(line)
    if not no_aggregate:
        with _user_errors():
            _aggregate(summary.run_dir)


def aggregate(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `pdbench run`.")],
    unit_tests: Annotated[
        bool,
        typer.Option(
            "--unit-tests",
            help=(
                "Also run the dbt unit tests (the SQL checked on hand-made rows): dbt itself "
                "builds the run then (slower)."
            ),
        ),
    ] = False,
) -> None:
    """Build the metric tables of a run directory (idempotent)."""
    with _user_errors():
        read_manifest(run_dir)
        _aggregate(run_dir, unit_tests=unit_tests)


def report(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="A run directory, aggregated; the folder of `pdbench leaderboard`; or a "
            "folder of runs (the run list with each run's headline)."
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="The HTML file to write (default: <run folder's name>-report.html here).",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML file: the overview and the key charts (inline SVG, no
    request to any host), to attach to a paper, an email or a CI job."""
    from pdbench.report import write_report

    with _user_errors():
        written = write_report(run_dir, output)
    typer.echo(f"wrote {written}")


def ui(
    run_dir: Annotated[
        Path,
        typer.Argument(
            help="A run directory written by `pdbench run`, the folder of `pdbench leaderboard`, "
            "or a folder of runs (its run list first)."
        ),
    ],
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port of the viewer.")] = 8501,
    address: Address = "127.0.0.1",
    print_command: PrintCommand = False,
) -> None:
    """Open the read-only viewer of a run directory or a series (or print the command)."""
    from pdbench.games import series_game

    with _user_errors():
        runs_folder = any(run_dir.glob(f"*/{RunFiles.MANIFEST}"))
        if series_game(run_dir) is None and not runs_folder:
            read_manifest(run_dir)
    command = streamlit_command(run_dir, port=port, address=address)
    serve(command, print_command=print_command)


def build_app() -> typer.Typer:
    """The ``pdbench`` command: the commands every game shares, with each registered game's
    own (its ``commands``) after ``aggregate``, in the registry's order."""
    app = typer.Typer(
        name="pdbench",
        help="Play the iterated Prisoner's Dilemma and Humanity's Last Arena with LLM agents.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        cls=FlagGroup,
        context_settings=CONTEXT_SETTINGS,
    )
    _command(app, "validate")(validate)
    _command(app, "run")(run)
    _command(app, "import", help=import_help())(import_)
    _command(app, "aggregate")(aggregate)
    for game in GAMES.values():
        if game.commands:
            imported(game.commands)(app)
    _command(app, "power")(power)
    _command(app, "report")(report)
    _command(app, "ui")(ui)
    _command(app, "schema")(schema)
    return app


app = build_app()


def main() -> None:
    """Entry point of the ``pdbench`` console script. Ctrl-C before a command has set up its
    own handling (while Python imports) ends quietly with 130, like every other Ctrl-C."""
    try:
        app()
    except KeyboardInterrupt:
        _err("interrupted")
        sys.exit(EXIT_INTERRUPTED)
