"""Servers the tests start as processes on 127.0.0.1: a free port, and waiting for an answer."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request

__all__ = ["free_port", "wait_for_http"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, process: subprocess.Popen, *, timeout: float, what: str) -> None:
    """Until ``url`` answers 200; fails when ``process`` ends first or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited with {process.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{what} did not answer on {url} within {timeout} s")
