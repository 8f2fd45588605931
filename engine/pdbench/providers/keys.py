"""API keys: read from the environment (and a ``.env`` file), and kept out of every file.

``.env`` is read once, from the working directory, with a tiny parser (``KEY=value`` lines,
optional ``export``, quotes, ``#`` comments); a variable already set in the environment is
never overridden. Every key handed out by :func:`api_key` (and every variable named like a
secret) is blanked out by :func:`scrub` (:mod:`pdbench.redact`) of any text that might reach
a file or the terminal (exception messages from SDKs sometimes echo what they were sent).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from pdbench.redact import remember_secret, scrub

__all__ = ["DOTENV", "api_key", "load_dotenv", "parse_dotenv", "scrub"]

DOTENV = Path(".env")
"""The ``.env`` file read (relative to the working directory)."""

_lock = threading.Lock()
_loaded: set[Path] = set()


def parse_dotenv(text: str) -> dict[str, str]:
    """The ``KEY=value`` pairs of a ``.env`` text."""
    pairs: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.replace("_", "").isalnum():
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        pairs[key] = value
    return pairs


def load_dotenv(path: Path = DOTENV) -> None:
    """Put the pairs of ``path`` (if it exists) into ``os.environ``, never overriding."""
    resolved = path.resolve()
    with _lock:
        if resolved in _loaded:
            return
        _loaded.add(resolved)
    if not path.is_file():
        return
    for key, value in parse_dotenv(path.read_text(encoding="utf-8")).items():
        os.environ.setdefault(key, value)


def api_key(env_var: str) -> str | None:
    """The value of ``env_var`` (after loading ``.env``), remembered for :func:`scrub`."""
    load_dotenv()
    value = os.environ.get(env_var) or None
    if value:
        remember_secret(value)
    return value
