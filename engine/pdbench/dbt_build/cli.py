"""dbt's own command line (``dbt compile``, ``dbt build``), run in a process of its own.

pdbench runs dbt only through its documented command line and reads only its documented
artifacts (``manifest.json``, ``run_results.json``): to compile the project once per version
of it (:mod:`pdbench.dbt_build.compilation`), and to build a run with its unit tests
(``pdbench aggregate --unit-tests``). The process is out of the terminal's process group, so
a Ctrl-C reaches pdbench alone, which stops it; on Linux it also ends when pdbench ends, however
pdbench ends (the kernel's death signal), so it never writes into a run whose lock is free.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from pdbench.errors import AggregationError

__all__ = ["dbt_arguments", "one_line", "run_dbt_cli"]

_PR_SET_PDEATHSIG = 1


def dbt_arguments(command: str, project_dir: Path, target_dir: Path) -> list[str]:
    """``dbt <command>`` on ``project_dir``, writing into ``target_dir`` (logs included)."""
    return [
        command,
        "--project-dir", str(project_dir),
        "--profiles-dir", str(project_dir),
        "--target-path", str(target_dir),
        "--log-path", str(target_dir / "logs"),
        "--no-version-check",
        "--no-send-anonymous-usage-stats",
        "--quiet",
        "--log-level-file", "none",
    ]  # fmt: skip


def _dbt_executable() -> str:
    beside = Path(sys.executable).with_name("dbt")
    if beside.is_file():
        return str(beside)
    found = shutil.which("dbt")
    if found is None:
        raise AggregationError("dbt is not installed: `uv sync` installs it")
    return found


def _die_with_parent() -> None:  # pragma: no cover - runs in the child, before dbt
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def run_dbt_cli(arguments: list[str], env: Mapping[str, str | None]) -> tuple[int, str]:
    """Run ``dbt <arguments>`` with the environment's variables changed by ``env`` (None:
    removed); its exit code and what it printed. Interrupted (Ctrl-C), it stops dbt first."""
    environment = dict(os.environ)
    for name, value in env.items():
        if value is None:
            environment.pop(name, None)
        else:
            environment[name] = value
    process = subprocess.Popen(
        [_dbt_executable(), *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=environment,
        start_new_session=True,
        # the kernel's death signal follows the thread that started the process: this one,
        # which waits for it
        preexec_fn=_die_with_parent,
    )
    try:
        output, _ = process.communicate()
    except BaseException:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        raise
    return process.returncode, output


def one_line(error: object) -> str:
    """dbt's error (``Compilation Error``, then what and where on lines of their own) as one
    line: its words, every run of spaces and line ends made one space."""
    return " ".join(str(error).split())
