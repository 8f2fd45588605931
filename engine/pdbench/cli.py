"""The ``pdbench`` command: validate, run, aggregate, ui.

A user mistake (bad config, missing file, existing run directory) ends with exit code 2 and
one line ``error: <file>: <field>: <message>`` on stderr, never a traceback, and leaves no run
directory behind.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from pdbench.config import LoadedConfig, load_config
from pdbench.errors import ConfigError, PdbenchError, RunDirError
from pdbench.runners.estimate import estimate_calls
from pdbench.runners.run_dir import finished_run
from pdbench.runners.run_experiment import (
    check_providers,
    plan_matches,
    run_experiment,
)
from pdbench.storage.manifest import canonical_sha256, read_manifest

__all__ = ["app", "main", "streamlit_command"]

app = typer.Typer(
    name="pdbench",
    help="Play the iterated Prisoner's Dilemma and Humanity's Last Arena with LLM agents.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

EXIT_INTERRUPTED = 130
STREAMLIT_APP = Path(__file__).parent / "ui" / "streamlit_app.py"


def _err(line: str) -> None:
    typer.echo(line, err=True)


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn pdbench's own errors into one line on stderr and their exit code; an error of the
    operating system (a path under a file, a read-only folder, a full disk) into one line
    naming the path, exit code 2."""
    try:
        yield
    except PdbenchError as exc:
        _err(f"error: {_one_line(str(exc))}")
        raise typer.Exit(exc.exit_code) from None
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _err(f"error: {_one_line(where + (exc.strerror or type(exc).__name__))}")
        raise typer.Exit(2) from None


def _one_line(text: str) -> str:
    """``text`` with every control or line-breaking character escaped (a key or value quoted
    from a file may hold them): an error is one line, whatever it quotes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _load(config: Path) -> LoadedConfig:
    loaded = load_config(config)
    for warning in loaded.warnings:
        _err(f"warning: {warning}")
    return loaded


def _agent_summary(agent: Any) -> str:
    if agent.type == "policy":
        params = f", {agent.params}" if agent.params else ""
        return f"{agent.display_name} (policy{params})"
    detail = f"llm, window {agent.history_window}"
    if agent.provider == "mock":
        detail += f", mock plays {agent.mock.strategy}"
    return f"{agent.display_name} ({detail})"


def _summary(
    loaded: LoadedConfig, *, replicates: int | None = None, run_dir: Path | None = None
) -> list[str]:
    config = loaded.config
    payoffs = config.payoffs
    cells = ", ".join(
        f"{name} {a:g}/{b:g}"
        for name, (a, b) in (
            ("CC", payoffs.CC),
            ("CD", payoffs.CD),
            ("DC", payoffs.DC),
            ("DD", payoffs.DD),
        )
    )
    count = config.replicates if replicates is None else replicates
    lines = [
        f"run_id {config.run_id}, seed {config.seed}, {count} replicate(s), "
        f"output {run_dir or config.run_dir()}",
        f"horizon: {config.horizon.describe()}",
        f"payoffs (A/B): {cells}",
        f"noise: {config.noise:g}",
    ]
    robin = config.round_robin
    if robin is not None:
        n = len(robin.agents)
        added = len(config.round_robin_conditions)
        lines.append(
            f"round robin: {n} agents, self-play {'on' if robin.self_play else 'off'} "
            f"-> {added} pairings ({n}x{n - 1}/2{f' + {n}' if robin.self_play else ''})"
        )
    lines.append(f"conditions ({len(config.conditions)}):")
    for c in config.conditions:
        noise = "" if c.noise is None else f" [noise {c.noise:g}]"
        lines.append(
            f"  {c.name}: {_agent_summary(c.agent_a)} vs {_agent_summary(c.agent_b)}{noise}"
        )
    return lines


@app.command()
def validate(
    config: Annotated[Path, typer.Argument(help="The experiment YAML file.")],
) -> None:
    """Check a config: schema, refs and overrides, prompt and persona files, providers."""
    with _user_errors():
        loaded = _load(config)
        if loaded.config.game == "arena":
            from pdbench.arena.plan import summary_lines
            from pdbench.arena.players import check_arena_providers

            check_arena_providers(loaded)
            lines = summary_lines(loaded.config)
        else:
            check_providers(loaded)
            lines = _summary(loaded)
    typer.echo(f"ok: {loaded.path} (game {loaded.config.game})")
    for line in lines:
        typer.echo(line)


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="The experiment YAML file.")],
    replicates: Annotated[
        int | None, typer.Option(min=1, help="Replicates per condition (overrides the config).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Validate and show the plan; write nothing.")
    ] = False,
    output_dir: Annotated[
        Path | None, typer.Option(help="Run directory (default: the config's output_dir).")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace an existing run directory.")
    ] = False,
    no_aggregate: Annotated[
        bool, typer.Option("--no-aggregate", help="Do not build the metrics after the run.")
    ] = False,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue the stopped run of this config: keep finished matches (PD) or "
            "phases (arena), replay the rest.",
        ),
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")
    ] = False,
) -> None:
    """Play the experiment (PD: every condition x replicate; arena: the tournament) and write
    the run directory."""
    with _user_errors():
        loaded = _load(config)
        if loaded.config.game == "arena":
            if replicates is not None:
                raise ConfigError("--replicates applies to game pd only", path=loaded.path)
            _run_arena(
                loaded,
                dry_run=dry_run,
                output_dir=output_dir,
                overwrite=overwrite,
                resume=resume,
                use_cache=not no_cache,
                no_aggregate=no_aggregate,
            )
            return
        check_providers(loaded, keys=not dry_run)
        run_dir = loaded.config.run_dir(output_dir)
        plans = plan_matches(loaded.config, replicates=replicates)
        if resume and overwrite:
            raise RunDirError("--resume continues a run directory; --overwrite replaces it")
        played = loaded.config
        if replicates is not None:
            played = played.model_copy(update={"replicates": replicates})
        if dry_run:
            typer.echo(f"dry run: would write {len(plans)} matches to {run_dir}")
            typer.echo(_existing(run_dir, played, overwrite=overwrite, resume=resume))
            for line in _summary(loaded, replicates=replicates, run_dir=run_dir):
                typer.echo(line)
            for plan in plans:
                typer.echo(f"  {plan.match_id}: {plan.planned_rounds} rounds")
            for line in estimate_calls(loaded, plans=plans).lines():
                typer.echo(line)
            return
        if not (overwrite or resume) and _report_finished(run_dir, played):
            return
        if not no_aggregate:
            _prepare_dbt()
        try:
            result = _run_with_progress(
                loaded,
                replicates=replicates,
                output_dir=output_dir,
                overwrite=overwrite,
                resume=resume,
                use_cache=not no_cache,
                total=len(plans),
            )
        except KeyboardInterrupt:
            _err(f"interrupted: {run_dir} is marked interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        counts = result.counts
        typer.echo(
            f"run {result.manifest.run_id} {result.manifest.status}: {counts['matches']} matches "
            f"({counts['aborted_matches']} aborted), {counts['rounds']} rounds, "
            f"{counts['calls']} provider calls -> {result.run_dir}"
        )
        if not no_aggregate:
            _aggregate(result.run_dir)


def _existing(run_dir: Path, config: Any, *, overwrite: bool, resume: bool) -> str:
    """What a real run would do with ``run_dir`` as it is now (for ``--dry-run``)."""
    if not run_dir.exists():
        return f"{run_dir}: does not exist yet; the run creates it"
    if resume:
        return f"{run_dir}: exists; --resume continues it"
    if overwrite:
        return f"{run_dir}: exists; --overwrite replaces it"
    if finished_run(run_dir, config_sha256=canonical_sha256(config.model_dump(mode="json"))):
        return f"{run_dir}: holds this run, completed; the run would only say so"
    return f"{run_dir}: exists with another run or config; the run needs --overwrite or --resume"


def _report_finished(run_dir: Path, config: Any) -> bool:
    """Say so and return True when ``run_dir`` holds a completed run of this very config."""
    manifest = finished_run(run_dir, config_sha256=canonical_sha256(config.model_dump(mode="json")))
    if manifest is None:
        return False
    typer.echo(
        f"run {manifest.run_id} is already complete in {run_dir} (same config; finished "
        f"{manifest.finished_at}); nothing to play. Metrics: pdbench aggregate {run_dir}; "
        "play it again: --overwrite"
    )
    return True


def _run_with_progress(
    loaded: LoadedConfig,
    *,
    replicates: int | None,
    output_dir: Path | None,
    overwrite: bool,
    resume: bool,
    use_cache: bool,
    total: int,
) -> Any:
    from rich.progress import TextColumn

    with _progress(TextColumn("{task.fields[match]}")) as progress:
        task = progress.add_task("matches", total=total, match="")
        return run_experiment(
            loaded,
            replicates=replicates,
            output_dir=output_dir,
            overwrite=overwrite,
            resume=resume,
            use_cache=use_cache,
            on_match_done=lambda plan, _: progress.update(task, advance=1, match=plan.match_id),
        )


def _run_arena(
    loaded: LoadedConfig,
    *,
    dry_run: bool,
    output_dir: Path | None,
    overwrite: bool,
    resume: bool,
    use_cache: bool,
    no_aggregate: bool,
) -> None:
    from pdbench.arena.plan import estimate_arena, plan_calls, summary_lines
    from pdbench.arena.players import check_arena_providers

    check_arena_providers(loaded, keys=not dry_run)
    config = loaded.config
    run_dir = config.run_dir(output_dir)
    if resume and overwrite:
        raise RunDirError("--resume continues a run directory; --overwrite replaces it")
    if dry_run:
        plan = plan_calls(config)
        total = sum(p.calls for p in plan)
        typer.echo(f"dry run: would make at most {total} provider calls into {run_dir}")
        typer.echo(_existing(run_dir, config, overwrite=overwrite, resume=resume))
        for line in summary_lines(config, output_dir=str(output_dir) if output_dir else None):
            typer.echo(line)
        typer.echo("calls per phase (before re-asks):")
        for phase in plan:
            how = "exactly" if phase.exact else "at most"
            typer.echo(f"  {phase.phase}: {how} {phase.calls}")
        typer.echo(f"each call may be re-asked up to {config.max_retries} times")
        for line in estimate_arena(loaded).lines():
            typer.echo(line)
        return
    if not (overwrite or resume) and _report_finished(run_dir, config):
        return
    if not no_aggregate or config.question_filter.kind != "none":
        _prepare_dbt()
    try:
        result = _arena_with_progress(
            loaded, output_dir=output_dir, overwrite=overwrite, resume=resume, use_cache=use_cache
        )
    except KeyboardInterrupt:
        _err(f"interrupted: {run_dir} is marked interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    counts = result.counts
    typer.echo(
        f"run {result.manifest.run_id} {result.manifest.status}: {counts['questions']} "
        f"questions ({counts['kept_questions']} kept), {counts['question_ratings']} ratings, "
        f"{counts['answers']} answers, {counts['judgments']} judgements, "
        f"{counts['calls']} provider calls -> {result.run_dir}"
    )
    if not no_aggregate:
        _aggregate(result.run_dir)


def _arena_with_progress(
    loaded: LoadedConfig,
    *,
    output_dir: Path | None,
    overwrite: bool,
    resume: bool,
    use_cache: bool,
) -> Any:
    from pdbench.arena.runner import run_arena

    with _progress() as progress:
        bars: dict[str, Any] = {}

        def on_progress(phase: str, done: int, total: int) -> None:
            if phase not in bars:
                bars[phase] = progress.add_task(phase, total=total)
            progress.update(bars[phase], completed=done)
            if done == total:
                _err(f"{phase}: {total} calls done")

        return run_arena(
            loaded,
            output_dir=output_dir,
            overwrite=overwrite,
            resume=resume,
            use_cache=use_cache,
            on_progress=on_progress,
        )


def _progress(*columns: Any) -> Any:
    """Progress bars on stderr (description, bar, done/total, then ``columns``), shown only
    on a terminal and removed when done."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    console = Console(stderr=True)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        *columns,
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _prepare_dbt() -> None:
    """Start dbt (import, parse) in its own process now, while the games are played."""
    from pdbench.storage.dbt import prepare_dbt

    prepare_dbt()


def _aggregate(run_dir: Path, *, unit_tests: bool = False) -> None:
    from pdbench.storage.aggregate import aggregate_run

    checks = "unit and data tests" if unit_tests else "data tests"

    def announce(line: str) -> None:
        _err(line.replace("with dbt...", f"with dbt (models and {checks})..."))

    try:
        summary = aggregate_run(run_dir, unit_tests=unit_tests, on_start=announce)
    except KeyboardInterrupt:
        _err(f"interrupted: the metrics of {run_dir} are incomplete (`pdbench aggregate` again)")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    typer.echo(summary.text)


@app.command()
def aggregate(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `pdbench run`.")],
    unit_tests: Annotated[
        bool,
        typer.Option(
            "--unit-tests",
            help="Also run the dbt unit tests: the SQL checked on hand-made rows.",
        ),
    ] = False,
) -> None:
    """Build the metric tables of a run directory (idempotent)."""
    with _user_errors():
        read_manifest(run_dir)
        _aggregate(run_dir, unit_tests=unit_tests)


def streamlit_command(run_dir: Path, *, port: int, address: str = "127.0.0.1") -> list[str]:
    """The command that opens the viewer on ``run_dir``: absolute paths, so that it works from
    any working directory; headless, so that it opens no browser and asks nothing."""
    local = Path(sys.executable).parent / "streamlit"
    streamlit = str(local) if local.exists() else "streamlit"
    run_dir = Path(run_dir).expanduser().resolve()
    return [
        streamlit,
        "run",
        str(STREAMLIT_APP),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "viewer",
        "--theme.primaryColor",
        "#4e79a7",
        "--",
        "--run-dir",
        str(run_dir),
        "--runs-root",
        str(run_dir.parent),
    ]


@app.command()
def ui(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `pdbench run`.")],
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port of the viewer.")] = 8501,
    address: Annotated[
        str, typer.Option(help="Address the viewer listens on (0.0.0.0: every interface).")
    ] = "127.0.0.1",
    print_command: Annotated[
        bool, typer.Option("--print-command", help="Print the Streamlit command, do not run it.")
    ] = False,
) -> None:
    """Open the read-only viewer of a run directory (or print the command that does)."""
    with _user_errors():
        read_manifest(run_dir)
    command = streamlit_command(run_dir, port=port, address=address)
    if print_command:
        typer.echo(shlex.join(command))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    # exec, not a child process: stopping `pdbench ui` stops the server
    os.execvp(command[0], command)


def main() -> None:
    """Entry point of the ``pdbench`` console script. Ctrl-C before a command has set up its
    own handling (while Python imports) ends quietly with 130, like every other Ctrl-C."""
    try:
        app()
    except KeyboardInterrupt:
        _err("interrupted")
        sys.exit(EXIT_INTERRUPTED)
