"""Resume a run that was stopped (Ctrl-C, ``kill -9``, a crash, a provider failure).

``pdbench run <config> --resume`` continues the run directory the config (or
``--output-dir``) points at:

1. the manifest must be there and its ``config_sha256`` must equal the sha256 of the config
   as loaded now (with the same ``--replicates``); otherwise resume refuses
   (:func:`pdbench.run.run_dir.resumable_manifest`, called by the run frame
   :mod:`pdbench.run.frame` for every game);
2. a match is *finished* when ``matches.jsonl`` has its line (the line is written after all
   of the match's rounds and calls) and ``rounds.jsonl`` holds exactly its ``rounds_played``
   rounds (:func:`pdbench.pd.match_files.match_round_counts`); every other match,
   including one whose rounds were lost, is replayed from its first round;
3. the lines of unfinished matches (partial rounds, their calls, a torn last line) are
   dropped by rewriting the three match files atomically (:mod:`pdbench.pd.match_files`);
4. the runner plays the rest and, at the end, sorts the files into plan order.

Seeds derive by name and the mock is a pure function of its prompt, so the final files equal
an uninterrupted run's (timestamps and latencies aside); with a real provider the response
cache replays the replies already paid for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pdbench.pd.match_files import match_round_counts, rewrite_in_plan_order

__all__ = ["ResumeState", "prepare_resume"]


@dataclass(frozen=True)
class ResumeState:
    """What a resumed run starts from."""

    finished: frozenset[str]
    """Match ids with a ``matches.jsonl`` line and all their rounds: kept, not replayed."""
    counts: dict[str, int]
    """Lines kept per file (``rounds``, ``matches``, ``aborted_matches``, ``calls``)."""


def prepare_resume(run_dir: Path, *, plan_order: list[str]) -> ResumeState:
    """Drop the unfinished matches of the stopped run in ``run_dir`` (the run frame has
    checked that this config may continue it)."""
    order = {match_id: i for i, match_id in enumerate(plan_order)}
    finished = match_round_counts(run_dir).complete & order.keys()
    counts, _ = rewrite_in_plan_order(run_dir, order=order, keep=finished)
    return ResumeState(finished=finished, counts=counts)
