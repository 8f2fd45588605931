"""The commands that serve pdbench's two Streamlit pages: the read-only viewer
(``pdbench ui``) and the audience page (``pdbench audience``)."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import typer

__all__ = ["AUDIENCE_APP", "STREAMLIT_APP", "audience_command", "streamlit_command"]

STREAMLIT_APP = Path(__file__).parent / "ui" / "streamlit_app.py"
AUDIENCE_APP = Path(__file__).parent / "arena" / "audience" / "page.py"


def _streamlit(app_path: Path, *, port: int, address: str, app_args: list[str]) -> list[str]:
    """``streamlit run app_path`` with ``app_args``: headless, so that it opens no browser and
    asks nothing."""
    local = Path(sys.executable).parent / "streamlit"
    streamlit = str(local) if local.exists() else "streamlit"
    return [
        streamlit,
        "run",
        str(app_path),
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
        *app_args,
    ]


def streamlit_command(run_dir: Path, *, port: int, address: str = "127.0.0.1") -> list[str]:
    """The command that opens the viewer on ``run_dir``: absolute paths, so that it works from
    any working directory; headless, so that it opens no browser and asks nothing."""
    run_dir = Path(run_dir).expanduser().resolve()
    return _streamlit(
        STREAMLIT_APP,
        port=port,
        address=address,
        app_args=["--run-dir", str(run_dir), "--runs-root", str(run_dir.parent)],
    )


def audience_command(run_dir: Path, *, port: int, address: str = "127.0.0.1") -> list[str]:
    """The command that serves the audience page of ``run_dir`` (absolute paths)."""
    run_dir = Path(run_dir).expanduser().resolve()
    return _streamlit(
        AUDIENCE_APP, port=port, address=address, app_args=["--run-dir", str(run_dir)]
    )


def serve(command: list[str], *, print_command: bool) -> None:
    """Replace this process by a page's Streamlit ``command`` (stopping it stops the server),
    or with ``--print-command`` print it."""
    if print_command:
        typer.echo(shlex.join(command))
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvp(command[0], command)
