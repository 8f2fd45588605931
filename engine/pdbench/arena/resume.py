"""Resume a stopped tournament, phase by phase (``pdbench run configs/arena.yaml --resume``).

A phase's record file is written whole when all its calls are done, then the phase is added
to the manifest's ``phases_done``: that marks it complete. Resuming

1. checks that the config is the one the run started with
   (:func:`pdbench.run.run_dir.resumable_manifest`, called by the run frame
   :mod:`pdbench.run.frame` for every game);
2. keeps the files of the phases in ``phases_done`` and reads their records back;
3. deletes the file of any later phase and drops the ``calls.jsonl`` lines of every phase not
   done (atomically), so the interrupted phase is replayed from its first call;
4. lets the runner play the remaining phases (pairwise judging, then the embedding of
   ``diversity``, last, each kept only when it was done) (the question filter is re-run
   from the kept files when answering has not finished).

Replaying a phase costs nothing for calls already paid for: the response cache (on for real
providers) returns them, marked ``cache_hit``; in batch mode the batches the manifest names
(``batches``: submitted for the unfinished phase, perhaps still running) are collected first
and their replies used, so no request of theirs is submitted again.

Seeds derive by name and the mock is a pure function of its prompt, so the final files equal
an uninterrupted run's (timestamps and latencies aside; with a real provider, replayed calls
are cache hits at cost 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pdbench.arena.prompts import PHASES, Phase
from pdbench.arena.records import ArenaFiles
from pdbench.storage.jsonl import read_jsonl, rewrite_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

__all__ = ["PHASE_FILES", "ArenaResumeState", "prepare_arena_resume"]

PHASE_FILES: dict[Phase | Literal["pairwise"], str] = {
    "generate": ArenaFiles.QUESTIONS,
    "rate": ArenaFiles.QUESTION_RATINGS,
    "answer": ArenaFiles.ANSWERS,
    "judge": ArenaFiles.JUDGMENTS,
    "self_assess": ArenaFiles.SELF_ASSESSMENTS,
    "pairwise": ArenaFiles.PAIRWISE_JUDGMENTS,
}
"""The record file each phase writes."""


@dataclass(frozen=True)
class ArenaResumeState:
    """What a resumed tournament starts from."""

    manifest: RunManifest
    records: dict[Phase, list[dict[str, Any]]]
    """The records of every finished phase, in play order."""
    calls: int
    """``calls.jsonl`` lines kept (those of finished phases)."""


def prepare_arena_resume(run_dir: Path, manifest: RunManifest) -> ArenaResumeState:
    """Drop the unfinished phases of the stopped tournament in ``run_dir``, whose manifest
    is ``manifest`` (the run frame has checked that this config may continue it)."""
    done: list[Phase] = []
    for phase in PHASES:  # only a prefix of the play order can be finished
        if phase not in manifest.phases_done:
            break
        done.append(phase)
    for phase in PHASES[len(done) :]:
        (run_dir / PHASE_FILES[phase]).unlink(missing_ok=True)
    records = {phase: list(read_jsonl(run_dir / PHASE_FILES[phase])) for phase in done}
    # pairwise judging (``judging``) is played after self-assessment, before embedding
    if "pairwise" in manifest.phases_done and "judge" in done:
        done.append("pairwise")  # type: ignore[arg-type]
        records["pairwise"] = list(read_jsonl(run_dir / PHASE_FILES["pairwise"]))  # type: ignore[index]
    else:
        (run_dir / PHASE_FILES["pairwise"]).unlink(missing_ok=True)
    # embedding (``diversity``) is played after every phase of play
    if "embed" in manifest.phases_done and "judge" in done:
        done.append("embed")  # type: ignore[arg-type]
        records["embed"] = list(read_jsonl(run_dir / ArenaFiles.EMBEDDINGS))  # type: ignore[index]
    else:
        (run_dir / ArenaFiles.EMBEDDINGS).unlink(missing_ok=True)
    calls = _keep_calls(run_dir / RunFiles.CALLS, phases=set(done))
    return ArenaResumeState(
        manifest=manifest.model_copy(update={"phases_done": done}), records=records, calls=calls
    )


def _keep_calls(path: Path, *, phases: set[str]) -> int:
    """Rewrite ``calls.jsonl`` with the lines of ``phases`` only (a torn last line goes too)."""
    if "judge" in phases:  # a rationale is asked within its judging task
        phases = phases | {"rationale"}
    kept = [r for r in read_jsonl(path) if r.get("phase") in phases] if path.exists() else []
    return rewrite_jsonl(path, kept)
