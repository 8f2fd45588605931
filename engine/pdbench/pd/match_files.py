"""Rewrite a run's per-match files in plan order, optionally keeping only some matches.

``rounds.jsonl``, ``calls.jsonl`` and ``matches.jsonl`` carry a ``match_id`` on every line.
Matches played concurrently append their lines as they go, interleaved; a match's own lines
are always in play order (one thread plays a match). Sorting the lines *stably* by the plan
index of their match therefore gives exactly the file a sequential run writes. Resume uses the
same pass with ``keep`` to drop the lines of matches that never finished.

Each file is rewritten atomically (:func:`pdbench.storage.jsonl.rewrite_jsonl`): a crash
during the rewrite leaves either the old file or the new one, never a mix.

A match is *complete* when ``matches.jsonl`` has its line and ``rounds.jsonl`` holds exactly
``rounds_played`` of its rounds (:func:`match_round_counts`). A finished run must have only
complete matches (:func:`raise_if_incomplete` on :meth:`MatchRounds.problems`); a resume
replays every other match.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.errors import IntegrityError, RunDirError
from pdbench.number_text import plural
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl, rewrite_jsonl
from pdbench.storage.schema import RunFiles

__all__ = [
    "MATCH_FILES",
    "MatchRounds",
    "count_rounds",
    "match_round_counts",
    "raise_if_incomplete",
    "rewrite_in_plan_order",
]

MATCH_FILES = (PDFiles.ROUNDS, RunFiles.CALLS, PDFiles.MATCHES, PDFiles.STATEMENTS)
"""The files with a line per match, round or call; ``statements.jsonl`` only in runs with
an agent asked for its strategy (never created here when absent)."""


def rewrite_in_plan_order(
    run_dir: Path,
    *,
    order: Mapping[str, int],
    keep: Collection[str] | None = None,
) -> tuple[dict[str, int], MatchRounds]:
    """Sort every match file of ``run_dir`` by ``order[match_id]`` (stable); with ``keep``,
    drop lines of other matches. Returns the run's counts (rounds, matches, aborted, calls)
    and, from the same pass, each match's rounds next to its ``rounds_played``.

    A torn last line (a crash mid-write) is dropped; lines of matches outside ``order`` go
    last, in their file order.
    """
    counts: dict[str, int] = {}
    aborted = 0
    last = len(order)
    found: Counter[str] = Counter()
    played: dict[str, int] = {}
    for name in MATCH_FILES:
        path = run_dir / name
        if not path.exists():
            if name == PDFiles.STATEMENTS:
                continue
            path.touch()
        kept: list[tuple[int, int, dict[str, Any]]] = []
        for position, record in enumerate(read_jsonl(path)):
            match_id = record.get("match_id", "")
            if keep is not None and match_id not in keep:
                continue
            kept.append((order.get(match_id, last), position, record))
        kept.sort(key=lambda entry: (entry[0], entry[1]))
        counts[name] = rewrite_jsonl(path, (record for _, _, record in kept))
        if name == PDFiles.ROUNDS:
            found.update(str(record.get("match_id")) for _, _, record in kept)
        if name == PDFiles.MATCHES:
            aborted = sum(record.get("status") == "aborted" for _, _, record in kept)
            played = {str(r["match_id"]): int(r.get("rounds_played") or 0) for _, _, r in kept}
    totals = {
        "rounds": counts[PDFiles.ROUNDS],
        "matches": counts[PDFiles.MATCHES],
        "aborted_matches": aborted,
        "calls": counts[RunFiles.CALLS],
    }
    return totals, MatchRounds(played=played, found=found)


_MATCH_KEY = b'"match_id":"'


def count_rounds(path: Path) -> Counter[str]:
    """Round lines per ``match_id`` in ``path`` (``rounds.jsonl``); a torn last line is not
    counted, a damaged line elsewhere is a :class:`RunDirError` naming it.

    Match ids hold no quote (condition names are ``[A-Za-z0-9_.-]``), so the id is read
    straight from the bytes of the line the engine wrote; any other spelling of the line is
    parsed as JSON.
    """
    counts: Counter[str] = Counter()
    if not path.exists():
        return counts
    key, width = _MATCH_KEY, len(_MATCH_KEY)
    with path.open("rb") as handle:
        for line_number, line in enumerate(handle, start=1):
            start = line.find(key)
            if start >= 0 and line.endswith(b"\n"):
                start += width
                counts[line[start : line.index(b'"', start)].decode()] += 1
                continue
            try:
                match_id = json.loads(line)["match_id"]
            except (ValueError, KeyError, TypeError):
                if not handle.peek(1):
                    break
                raise RunDirError(f"{path}: line {line_number}: not a round record") from None
            if not line.endswith(b"\n"):
                break
            counts[str(match_id)] += 1
    return counts


@dataclass(frozen=True)
class MatchRounds:
    """What ``matches.jsonl`` says of each match, next to what ``rounds.jsonl`` holds."""

    played: dict[str, int]
    """``rounds_played`` per match with a ``matches.jsonl`` line."""
    found: Counter[str]
    """Round lines per match id in ``rounds.jsonl``."""

    @property
    def complete(self) -> frozenset[str]:
        """Matches with a line and exactly ``rounds_played`` rounds."""
        return frozenset(m for m, n in self.played.items() if self.found.get(m, 0) == n)

    def problems(self) -> list[str]:
        """One phrase per incomplete match or stray round, in file order."""
        short = [
            f"{m}: {self.found.get(m, 0)} of {plural(n, 'round')} in {PDFiles.ROUNDS}"
            for m, n in self.played.items()
            if self.found.get(m, 0) != n
        ]
        stray = [
            f"{m}: {plural(n, 'round')} but no line in {PDFiles.MATCHES}"
            for m, n in self.found.items()
            if m not in self.played
        ]
        return short + stray


def match_round_counts(run_dir: Path) -> MatchRounds:
    """``rounds_played`` of every match line of ``run_dir`` and its round lines."""
    matches = run_dir / PDFiles.MATCHES
    played = {
        str(record["match_id"]): int(record.get("rounds_played") or 0)
        for record in (read_jsonl(matches) if matches.exists() else ())
        if "match_id" in record
    }
    return MatchRounds(played=played, found=count_rounds(run_dir / PDFiles.ROUNDS))


def raise_if_incomplete(run_dir: Path, problems: list[str]) -> None:
    """Raise :class:`IntegrityError` naming the first ``problems`` (none: return)."""
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise IntegrityError(
            f"{run_dir}: rounds lost: {'; '.join(problems[:3])}{more}; "
            "`pdbench run --resume` replays these matches"
        )
