"""Tests that need something the README's two commands do not install.

Outside CI such a test is skipped, and its reason names the one command that installs what
is missing; in CI (``CI`` set, as ``.ci/run`` runs) it fails instead, so no test is left
that CI never runs.
"""

from __future__ import annotations

import os

import pytest

__all__ = ["in_ci", "missing"]


def in_ci() -> bool:
    """True when the tests run in CI (``CI`` set to anything but empty, 0 or false)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def missing(what: str, *, install: str) -> None:
    """Skip the test (fail it in CI): ``what`` is not installed; ``install`` installs it."""
    message = f"{what} is not installed: {install}"
    if in_ci():
        pytest.fail(f"{message} (.ci/run installs it)")
    pytest.skip(message)
