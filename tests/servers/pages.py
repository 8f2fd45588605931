"""The pages the browser tests open: a ``pdbench`` Streamlit server on a free port, and
Debian's Chromium for Playwright to drive (Playwright cannot download browsers here)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.needs import missing
from tests.servers.local import SAFETY_NET_S, free_port, stop, wait_for_http

__all__ = ["CHROMIUM_ARGS", "chromium", "pdbench_page"]

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
"""Headless as root, and no connections to the closed network's missing hosts."""


def chromium() -> str:
    """Debian's Chromium (``apt-get install chromium``; ``.ci/run`` installs it)."""
    if CHROMIUM.is_file():
        return str(CHROMIUM)
    found = shutil.which("chromium")
    if found is None:
        missing("Chromium", install="apt-get install chromium")
    return str(found)


@contextmanager
def pdbench_page(command: str, run_dir: Path) -> Iterator[str]:
    """``pdbench <command> <run_dir>`` (``ui`` or ``audience``) serving on 127.0.0.1: its URL,
    once Streamlit answers; the server is stopped on the way out. The server's output goes to
    a file (a pipe nobody reads would block it once full), whose end a failure to start
    shows."""
    port = free_port()
    pdbench = Path(sys.executable).parent / "pdbench"
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen(
            [str(pdbench), command, str(run_dir), "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            try:
                wait_for_http(
                    f"{url}/_stcore/health", server, timeout=SAFETY_NET_S, what=f"pdbench {command}"
                )
            except AssertionError as failure:
                log.seek(0)
                output = log.read()[-4000:].decode(errors="replace")
                raise AssertionError(f"{failure}; its output ends:\n{output}") from None
            yield url
        finally:
            stop(server, grace=10)
