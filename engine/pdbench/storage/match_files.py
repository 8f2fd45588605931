"""Rewrite a run's per-match files in plan order, optionally keeping only some matches.

``rounds.jsonl``, ``calls.jsonl`` and ``matches.jsonl`` carry a ``match_id`` on every line.
Matches played concurrently append their lines as they go, interleaved; a match's own lines
are always in play order (one thread plays a match). Sorting the lines *stably* by the plan
index of their match therefore gives exactly the file a sequential run writes. Resume uses the
same pass with ``keep`` to drop the lines of matches that never finished.

Each file is written to ``<name>.tmp`` and moved over the original (``os.replace``), so a
crash during the rewrite leaves either the old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Mapping
from pathlib import Path

from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles

__all__ = ["MATCH_FILES", "rewrite_in_plan_order"]

MATCH_FILES = (RunFiles.ROUNDS, RunFiles.CALLS, RunFiles.MATCHES)


def rewrite_in_plan_order(
    run_dir: Path,
    *,
    order: Mapping[str, int],
    keep: Collection[str] | None = None,
) -> dict[str, int]:
    """Sort every match file of ``run_dir`` by ``order[match_id]`` (stable); with ``keep``,
    drop lines of other matches. Returns the run's counts (rounds, matches, aborted, calls).

    A torn last line (a crash mid-write) is dropped; lines of matches outside ``order`` go
    last, in their file order.
    """
    counts: dict[str, int] = {}
    aborted = 0
    last = len(order)
    for name in MATCH_FILES:
        path = run_dir / name
        if not path.exists():
            path.touch()
        kept: list[tuple[int, int, dict]] = []
        for position, record in enumerate(read_jsonl(path)):
            match_id = record.get("match_id")
            if keep is not None and match_id not in keep:
                continue
            kept.append((order.get(match_id, last), position, record))
        kept.sort(key=lambda entry: (entry[0], entry[1]))
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for _, _, record in kept:
                handle.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        counts[name] = len(kept)
        if name == RunFiles.MATCHES:
            aborted = sum(record.get("status") == "aborted" for _, _, record in kept)
    return {
        "rounds": counts[RunFiles.ROUNDS],
        "matches": counts[RunFiles.MATCHES],
        "aborted_matches": aborted,
        "calls": counts[RunFiles.CALLS],
    }
