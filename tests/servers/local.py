"""Servers the tests start as processes on 127.0.0.1: a free port, waiting for an answer, and
stopping the server."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request

__all__ = ["SAFETY_NET_S", "free_port", "stop", "wait_for_http"]

SAFETY_NET_S = 900.0
"""The outer bound of every wait in the tests (a process to end, a file to fill, a page to
draw): only a safety net against a hang. Tests wait on events and files, never a fixed
number of seconds, so a slow or busy machine makes them slower, not red."""


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


def stop(process: subprocess.Popen, *, grace: float) -> None:
    """End ``process``: asked to stop, then killed when it has not ended within ``grace``
    seconds (a safety net, not a wait the test relies on); it is reaped either way."""
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
