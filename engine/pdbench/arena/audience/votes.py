"""The votes file: each vote appended as one whole line, read back as a tally.

A vote is written with a single ``write`` on a file opened with ``O_APPEND``, under a lock
held across threads (the page's sessions) and processes (``flock``: two pages on one run),
then synced: two people voting at once never interleave their lines, and a vote the page
confirmed is on disk. A vote carries its ``vote_id``; the tally and the dbt staging model
count each id once, so a vote sent twice is counted once.

:func:`cast_vote` applies the audience's rule under that same lock, so two tabs or two pages
cannot both pass it: one vote per voter per answer (a second vote of the same voter on the
same answer, from another tab, is refused; the first stands), and at most
:data:`MAX_VOTES_PER_MINUTE` votes per voter in any minute.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pdbench.arena.records import AudienceVoteRecord
from pdbench.storage.jsonl import dumps_line, read_jsonl

__all__ = ["MAX_VOTES_PER_MINUTE", "Tally", "append_vote", "cast_vote", "read_tally"]

_LOCK = threading.Lock()
MAX_VOTES_PER_MINUTE = 10
"""Votes one voter may cast in any 60 seconds (reading an answer takes longer than 6 s)."""


def cast_vote(
    path: Path, vote: AudienceVoteRecord, *, per_minute: int = MAX_VOTES_PER_MINUTE
) -> str | None:
    """Append ``vote`` if the rule allows it (see the module): None when it was counted, else
    the one-line reason it was refused."""
    moment = _moment(vote.created_at)
    with _LOCK, _locked(path) as fd:
        recent = 0
        for record in read_jsonl(path) if path.is_file() else ():
            if record["voter"] != vote.voter:
                continue
            if record["answer_id"] == vote.answer_id:
                return "you have already scored this answer (in another tab?); it counts once"
            if 0 <= (moment - _moment(record["created_at"])) < 60:
                recent += 1
        if recent >= per_minute:
            return f"at most {per_minute} votes a minute: take a moment, then score again"
        _append_line(fd, path, vote)
    return None


def _moment(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


@contextmanager
def _locked(path: Path) -> Iterator[int]:
    """The votes file open for appending, under its ``flock`` (shared by every page process
    on the run)."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # releases the flock


def append_vote(path: Path, vote: AudienceVoteRecord) -> None:
    """Append ``vote`` to ``path`` as one line, whole, and sync it to disk (no rule: see
    :func:`cast_vote`)."""
    with _LOCK, _locked(path) as fd:
        _append_line(fd, path, vote)


def _append_line(fd: int, path: Path, vote: AudienceVoteRecord) -> None:
    line = dumps_line(vote.model_dump(mode="json")).encode("utf-8")
    written = os.write(fd, line)
    if written != len(line):
        raise OSError(f"{path}: a vote was written in part ({written} bytes)")
    os.fsync(fd)


@dataclass(frozen=True)
class Tally:
    """The votes so far: how many each answer has, and which answers each voter scored."""

    votes: Counter[str] = field(default_factory=Counter)
    """Votes per answer id (each vote id once)."""
    scored: dict[str, set[str]] = field(default_factory=dict)
    """Answer ids per voter."""

    def scored_by(self, voter: str) -> set[str]:
        return self.scored.get(voter, set())


def read_tally(path: Path) -> Tally:
    """The tally of ``path`` (empty when there is no file yet); a torn last line (a vote being
    written) is not counted yet."""
    if not path.is_file():
        return Tally()
    seen: set[str] = set()
    votes: Counter[str] = Counter()
    scored: defaultdict[str, set[str]] = defaultdict(set)
    for record in read_jsonl(path):
        if record["vote_id"] in seen:
            continue
        seen.add(record["vote_id"])
        votes[record["answer_id"]] += 1
        scored[record["voter"]].add(record["answer_id"])
    return Tally(votes=votes, scored=dict(scored))
