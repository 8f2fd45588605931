"""The votes file: each vote appended as one whole line, read back as a tally.

A vote is written with a single ``write`` on a file opened with ``O_APPEND``, under a lock
held across threads (the page's sessions) and processes (``flock``: two pages on one run),
then synced: two people voting at once never interleave their lines, and a vote the page
confirmed is on disk. A vote carries its ``vote_id``; the tally and the dbt staging model
count each id once, so a vote sent twice is counted once.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pdbench.storage.jsonl import dumps_line, read_jsonl
from pdbench.storage.schema import AudienceVoteRecord

__all__ = ["Tally", "append_vote", "read_tally"]

_LOCK = threading.Lock()


def append_vote(path: Path, vote: AudienceVoteRecord) -> None:
    """Append ``vote`` to ``path`` as one line, whole, and sync it to disk."""
    line = dumps_line(vote.model_dump(mode="json")).encode("utf-8")
    with _LOCK:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            written = os.write(fd, line)
            if written != len(line):
                raise OSError(f"{path}: a vote was written in part ({written} bytes)")
            os.fsync(fd)
        finally:
            os.close(fd)  # releases the flock


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
