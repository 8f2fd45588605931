"""Secrets out of every file: one scrubber for what is written to the manifest and calls.jsonl.

:func:`redacted` walks a JSON-like value (dicts, lists, strings) and replaces with ``***``:

- the value of every field named like a secret: a field whose name holds one of the words
  ``key``, ``apikey``, ``token``, ``secret``, ``password``, ``passwd``, ``authorization``,
  ``auth``, ``credential(s)``, ``cookie`` (``max_tokens`` holds the word ``tokens``, not
  ``token``, and is kept). A field ending in ``_env`` (``api_key_env``) holds the *name* of
  an environment variable and is kept when its value is one;
- in any string: the user and password of a URL (``https://user:pass@host`` ->
  ``https://***@host``), the value of a query parameter named like a secret, a bearer token,
  and every word that looks like a key (:func:`looks_like_key`);
- every key handed out by :func:`pdbench.providers.keys.api_key` and every environment value
  named like a secret (:func:`scrub`).

A word looks like a key when it starts like one (``sk-``, ``sk_``, ``pk-``, ``rk-``, ``AKIA``,
``AIza``, ``ghp_``, ``xox``) and is long enough, or when it holds a run of 20+ letters and
digits (between ``-`` or ``_``) that jumps between lower case, upper case and digits as often
as random text does (a CamelCase name jumps once a word). Lower-case hexadecimal (sha256
digests, git commits) is never a key here: the manifest is made of them.
"""

from __future__ import annotations

import functools
import itertools
import math
import os
import re
import threading
from collections import Counter
from typing import Any

__all__ = ["MASK", "looks_like_key", "redacted", "redacted_text", "remember_secret", "scrub"]

MASK = "***"
_lock = threading.Lock()
_secrets: set[str] = set()
_SECRET_ENV_NAMES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def remember_secret(value: str) -> None:
    """Mask ``value`` (a key read from the environment) wherever :func:`scrub` runs."""
    with _lock:
        _secrets.add(value)


def scrub(text: str) -> str:
    """``text`` with every key remembered so far (:func:`remember_secret`), and the value of
    every environment variable named like a secret (``*_API_KEY``, ``*_TOKEN``, ...),
    replaced by ``***``."""
    return _masked(text, _known_secrets())


def _known_secrets() -> list[str]:
    """The secrets :func:`scrub` masks, longest first."""
    with _lock:
        known = set(_secrets)
    known |= {
        value
        for name, value in os.environ.items()
        if value and name.upper().endswith(_SECRET_ENV_NAMES)
    }
    return sorted((k for k in known if len(k) >= 4), key=len, reverse=True)


def _masked(text: str, known: list[str]) -> str:
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "cookie",
    }
)
_KEY_PREFIXES = re.compile(
    r"^(sk|pk|rk)[-_][A-Za-z0-9_-]{12,}$|^(AKIA|ASIA)[A-Z0-9]{12,}$|"
    r"^AIza[A-Za-z0-9_-]{20,}$|^gh[pousr]_[A-Za-z0-9]{20,}$|^xox[a-z]-.{10,}$"
)
_WORD = re.compile(r"[A-Za-z0-9_\-+=]{16,}")
_USERINFO = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s?#]+)@")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}")
_QUERY = re.compile(r"(?P<name>[?&;][A-Za-z0-9_.-]+)=(?P<value>[^&#\s]*)")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEX = re.compile(r"^[0-9a-f]+$")


def _words(name: str) -> list[str]:
    """The words of a field name: ``apiKey`` and ``api_key`` are both ``api``, ``key``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def _env_name(name: str, value: str) -> bool:
    """Whether ``value`` of field ``name`` (``*_env``) is the name of a variable."""
    return (
        _words(name)[-1:] == ["env"] and bool(_ENV_NAME.match(value)) and not looks_like_key(value)
    )


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    words = _words(name)
    return any(w in _SECRET_WORDS for w in words) or "".join(words) in _SECRET_WORDS


def _entropy(word: str) -> float:
    """Shannon entropy of ``word``'s characters, in bits per character."""
    counts = Counter(word)
    return -sum(n / len(word) * math.log2(n / len(word)) for n in counts.values())


def looks_like_key(word: str) -> bool:
    """Whether ``word`` (one token, no spaces) looks like an API key or a token (see the
    module); lower-case hexadecimal never does."""
    if _HEX.match(word):
        return False
    if _KEY_PREFIXES.match(word):
        return True
    return any(_random_run(part) for part in re.split(r"[-_=+]", word))


def _random_run(part: str) -> bool:
    """A run of 20+ letters and digits that jumps between lower case, upper case and digits
    as often as random text does (a CamelCase name jumps once a word)."""
    if len(part) < 20 or _HEX.match(part):
        return False
    kinds = ["d" if c.isdigit() else "u" if c.isupper() else "l" for c in part]
    jumps = sum(a != b for a, b in itertools.pairwise(kinds))
    return len(set(kinds)) >= 2 and jumps >= len(part) / 3 and _entropy(part) >= 3.5


def redacted_text(text: str, *, known: list[str] | None = None) -> str:
    """``text`` with URL passwords, secret query values, bearer tokens, key-like words and
    known keys (``known``, default: :func:`scrub`'s) masked."""
    text = _masked(text, _known_secrets() if known is None else known)
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    text = _BEARER.sub(lambda m: f"{m[1]} {MASK}", text)
    text = _QUERY.sub(
        lambda m: f"{m['name']}={MASK}" if _secret_name(m["name"][1:]) else m[0], text
    )
    return _WORD.sub(lambda m: MASK if looks_like_key(m[0]) else m[0], text)


def redacted(value: Any, *, known: list[str] | None = None) -> Any:
    """``value`` (JSON-like) with every secret masked (see the module); ``known``: the keys
    to mask besides the patterns (default: :func:`scrub`'s; a caller that scrubbed its text
    already passes ``[]`` and saves reading the environment)."""
    return _redacted(value, name="", known=_known_secrets() if known is None else known)


def _redacted(value: Any, *, name: str, known: list[str]) -> Any:
    if isinstance(value, dict):
        return {k: _redacted(v, name=str(k), known=known) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(v, name=name, known=known) for v in value]
    if not isinstance(value, str):
        return value
    if name and value and _secret_name(name) and not _env_name(name, value):
        return MASK
    if len(value) < 16 and "@" not in value and "=" not in value and not known:
        return value  # too short for a key-like word, a bearer token, a password or a query
    return redacted_text(value, known=known)
