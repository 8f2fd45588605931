"""Errors that reach the user as one line, never as a traceback.

::

    PdbenchError                 base of everything pdbench raises on purpose
    ├── ConfigError              a config, a ref, an override or a prompt file is wrong (exit 2)
    ├── RunDirError              a run directory is missing, empty, torn or already exists (exit 2)
    ├── IntegrityError           a run's own files disagree (rounds lost); never a user mistake
    ├── ProviderError            a provider failed for good (bad key, unknown model, retries spent)
    ├── ExecutorError            an executor cannot be used (bad URL, no scheduler) (exit 2)
    └── AggregationError         dbt failed on a run directory

The CLI prints ``error: <message>`` and exits with ``exit_code``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = [
    "AggregationError",
    "ConfigError",
    "ExecutorError",
    "IntegrityError",
    "PdbenchError",
    "ProviderError",
    "RunDirError",
    "did_you_mean",
    "unknown",
]


class PdbenchError(Exception):
    """Base class; ``str(err)`` is the one line shown to the user."""

    exit_code = 1


class ConfigError(PdbenchError):
    """A config is invalid. The message names the file and the field."""

    exit_code = 2

    def __init__(self, message: str, *, path: object | None = None, field: str | None = None):
        parts = [str(part) for part in (path, field) if part]
        where = "".join(f"{part}: " for part in parts)
        super().__init__(f"{where}{message}")
        self.path = path
        self.field = field


class RunDirError(PdbenchError):
    """A run directory cannot be used as asked."""

    exit_code = 2


class IntegrityError(PdbenchError):
    """The files of a run disagree with each other: records were lost."""

    exit_code = 1


class ProviderError(PdbenchError):
    """A provider call failed for good."""

    exit_code = 1


class ExecutorError(PdbenchError):
    """The executor asked for cannot play the run: a malformed ``--executor``, a missing
    package, a scheduler that cannot be reached, or workers that keep dying."""

    exit_code = 2


class AggregationError(PdbenchError):
    """dbt could not build the marts of a run."""

    exit_code = 1


MAX_KNOWN_SHOWN = 12
"""Past this many known names, an error shows the closest ones and counts the rest."""


def unknown(what: str, value: object, known: Iterable[object]) -> str:
    """``unknown <what> <value!r> (known: a, b, c); did you mean 'b'?``: how every error about
    a name that is not one of ``known`` reads. A long list shows the names closest to
    ``value`` and counts the others; "did you mean" comes only when a name is close."""
    names = [str(name) for name in known]
    guess = did_you_mean(difflib.get_close_matches(str(value), names, n=1))
    if len(names) <= MAX_KNOWN_SHOWN:
        return f"unknown {what} {value!r} (known: {', '.join(names)}){guess}"
    close = difflib.get_close_matches(str(value), names, n=5, cutoff=0.5)
    shown = close or names[:5]
    label = "closest" if close else "known"
    rest = len(names) - len(shown)
    return f"unknown {what} {value!r} ({label}: {', '.join(shown)}; {rest} more){guess}"


def did_you_mean(close: list[str]) -> str:
    """``; did you mean 'x'?`` for the closest of ``close`` (best first), or nothing."""
    return f"; did you mean {close[0]!r}?" if close else ""
