"""``pdbench worker start|stop|status``: the persistent dbt worker
(:mod:`pdbench.storage.dbt_daemon`), which spares each command importing dbt and reading
its parse."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated

import typer

from pdbench.cli_errors import err, one_line
from pdbench.storage.dbt import DBT_PROJECT_DIR, worker_files
from pdbench.storage.worker_socket import drop_stale_state, project_key, read_state

__all__ = ["WorkerAction", "worker", "worker_lines"]

START_TIMEOUT_S = 600.0
"""How long ``start`` waits for the worker to import dbt and parse the project (seconds;
about 5 to 15 on a busy 2-core machine)."""
STOP_TIMEOUT_S = 30.0
"""How long ``stop`` waits for the worker to end before it kills it (seconds)."""


class WorkerAction(StrEnum):
    start = "start"
    stop = "stop"
    status = "status"


def worker(
    action: Annotated[WorkerAction, typer.Argument(help="start, stop or status.")],
) -> None:
    """Keep a dbt worker running between commands (opt-in): `run` and `aggregate` then use it
    instead of starting dbt each time, while the dbt project stays as it was."""
    try:
        lines = worker_lines(action)
    except (RuntimeError, OSError) as exc:
        err(f"error: {one_line(str(exc))}")
        raise typer.Exit(1) from None
    for line in lines:
        typer.echo(line)


def worker_lines(action: WorkerAction) -> list[str]:
    """Do ``action``; the lines that say what was done (RuntimeError if the worker could
    not start). Each action first removes a state file its worker no longer runs behind
    (its pid may be another process now), saying so in the first line."""
    from pdbench.storage import dbt_daemon

    files = worker_files()
    stale = drop_stale_state(files)
    notes = [] if stale is None else [stale]
    if action is WorkerAction.start:
        state, started = dbt_daemon.start(files, timeout=START_TIMEOUT_S)
        verb = "started" if started else "already running"
        return [*notes, f"dbt worker {verb}: pid {state['pid']}, socket {state['socket']}"]
    if action is WorkerAction.stop:
        pid = dbt_daemon.stop(files, timeout=STOP_TIMEOUT_S)
        if pid is None:
            return [*notes, "no dbt worker was running"]
        return [*notes, f"dbt worker stopped (pid {pid})"]
    return [*notes, *status_lines()]


def status_lines() -> list[str]:
    """What ``pdbench worker status`` prints."""
    files = worker_files()
    state = read_state(files)
    if state is None:
        return [
            "no dbt worker is running: each command starts a private one "
            "(`pdbench worker start` starts one that stays)"
        ]
    started = datetime.fromisoformat(state["started_at"])
    minutes = (datetime.now(UTC) - started).total_seconds() / 60
    served = int(state["requests_served"])
    lines = [
        f"dbt worker running: pid {state['pid']}, socket {state['socket']}",
        f"since {started:%Y-%m-%d %H:%M:%S} UTC ({minutes:.0f} min); "
        f"{served} request{'' if served == 1 else 's'} served; "
        f"{'busy (serving a command)' if state.get('busy') else 'idle'}",
        f"its output: {files.log}",
    ]
    if state.get("key") != project_key(DBT_PROJECT_DIR):
        lines.append(
            "stale: the dbt project changed since it started, so commands do not use it and "
            "start a private worker (`pdbench worker start` replaces it)"
        )
    return lines
