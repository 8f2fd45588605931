"""The response cache: an SQLite file of replies, so that re-running a config costs nothing.

The key (:func:`cache_key`) is the sha256 of the canonical JSON of everything that decides a
reply: provider, model, the replier's *identity* (its resolved endpoints, the mock's whole
player, every reply-shaping field of its config: :mod:`pdbench.providers.identity`),
decoding parameters, system prompt, prompt, and a *sample key* naming the draw (run seed,
condition, replicate, round, agent, attempt, ...).
The sample key keeps replicates at temperature > 0 distinct: two replicates send the same
prompt but are different samples, and must not share a cached reply.

One connection, shared by every thread behind a lock; each ``put`` commits at once, so a
reply paid for is kept even if the run is killed a moment later. A file written before the
table had a column gains it when opened (the column is NULL in older rows).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pdbench.errors import ConfigError
from pdbench.providers.base import Usage

__all__ = ["CachedReply", "ResponseCache", "cache_key"]


_SCHEMA = """
create table if not exists responses (
    key text primary key,
    reply text not null,
    tokens_in integer,
    tokens_out integer,
    cost_usd real,
    created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    tokens_reasoning integer,
    finish_reason text
)
"""
_ADDED_COLUMNS = {"tokens_reasoning": "integer", "finish_reason": "text"}
"""Columns newer than the first cache files, added to such a file when it is opened."""
_USAGE = ("tokens_in", "tokens_out", "cost_usd", "tokens_reasoning", "finish_reason")
"""The columns of a reply's usage: the fields of :class:`Usage`, in its order."""
_FIELDS = ("reply", *_USAGE)


@dataclass(frozen=True, slots=True)
class CachedReply:
    """A reply as it was first received, with its usage (price included) and how it ended."""

    reply: str
    usage: Usage

    def replayed_usage(self) -> Usage:
        """The usage of answering from the cache: the tokens of the first call, at no cost."""
        return replace(self.usage, cost_usd=0.0)


def cache_key(
    *,
    provider: str,
    model: str,
    params: dict[str, Any],
    system: str,
    prompt: str,
    sample: dict[str, Any],
    identity: dict[str, Any] | None = None,
) -> str:
    """sha256 hex of the canonical JSON of all the arguments."""
    payload = {
        "provider": provider,
        "identity": identity,
        "model": model,
        "params": params,
        "system": system,
        "prompt": prompt,
        "sample": sample,
    }
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Replies by key in an SQLite file (created with its folder when missing).

    A file that is not a usable cache (not SQLite, damaged pages, a ``responses`` table of
    another program) is refused when it is opened, and any SQLite error later (a file damaged
    while the run plays) is one :class:`ConfigError` line naming the file and saying to move
    it away, never a traceback."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        with self._unusable():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._open()

    @contextmanager
    def _unusable(self) -> Iterator[None]:
        """Any SQLite or file error in the block as one line naming the file."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            reason = " ".join(reason.split())
            raise ConfigError(
                f"cannot use {self.path} as the response cache: {reason} (move or delete the "
                "file, point cache_path at a new file, or run with --no-cache)",
                field="cache_path",
            ) from None

    def _open(self) -> None:
        self._db.execute("pragma journal_mode=wal")
        self._db.execute("pragma busy_timeout=5000")
        (verdict,) = self._db.execute("pragma quick_check(1)").fetchone()
        if verdict != "ok":
            first = str(verdict).replace("*** in database main ***", "").split("\n")
            raise sqlite3.DatabaseError(f"the file is damaged ({' '.join(first).strip()[:200]})")
        self._db.execute(_SCHEMA)
        present = {row[1] for row in self._db.execute("pragma table_info(responses)")}
        missing = [c for c in ("key", "reply", *_USAGE[:3]) if c not in present]
        if missing:
            raise sqlite3.DatabaseError(
                f"its responses table is not pdbench's (no column {missing[0]})"
            )
        for column, kind in _ADDED_COLUMNS.items():
            if column not in present:
                try:
                    self._db.execute(f"alter table responses add column {column} {kind}")
                except sqlite3.OperationalError as exc:  # another process added it first
                    if "duplicate column" not in str(exc):
                        raise

    def get(self, key: str) -> CachedReply | None:
        """The reply stored under ``key``, or None."""
        with self._lock, self._unusable():
            row = self._db.execute(
                f"select {', '.join(_FIELDS)} from responses where key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        if not isinstance(row[0], str):
            with self._unusable():
                raise sqlite3.DatabaseError(f"a reply of key {key[:12]} is not text")
        return CachedReply(row[0], Usage(*row[1:]))

    def put(self, key: str, entry: CachedReply) -> None:
        """Store ``entry`` under ``key`` (replacing any older one) and commit."""
        with self._lock, self._unusable():
            self._db.execute(
                f"insert or replace into responses (key, {', '.join(_FIELDS)})"
                f" values (?{', ?' * len(_FIELDS)})",
                (key, entry.reply, *(getattr(entry.usage, name) for name in _USAGE)),
            )

    def __len__(self) -> int:
        with self._lock, self._unusable():
            count: int = self._db.execute("select count(*) from responses").fetchone()[0]
            return count

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._db.close()
