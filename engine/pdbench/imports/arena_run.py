"""Writing imported pairwise verdicts as an arena run directory, line for line like a played
run's.

An importer turns its source into :class:`ImportedVerdict` objects and hands them to
:func:`write_pairwise_run`, which gives every verdict its pair (the question and the two
authors, whatever their order) and its order (0 the first time a judge saw the pair, 1 the
second: a swapped pair) and writes ``pairwise_judgments.jsonl`` through the record contract
(:class:`~pdbench.arena.records.PairwiseJudgmentRecord`), an empty ``calls.jsonl`` (no
provider call was recorded) and the manifest, whose ``scoring`` holds the arena's defaults.
What the source never recorded (answer ids, attempts, prompts) is null.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pdbench.arena.pairwise_config import PairwiseConfig
from pdbench.arena.records import ArenaFiles, PairwiseJudgmentRecord, Verdict
from pdbench.arena.scoring_config import (
    AnomalyConfig,
    ArenaScoring,
    BootstrapConfig,
    QuestionFilterConfig,
    SeededAnomaly,
    SeededBootstrap,
    TrickScoring,
)
from pdbench.clock import utc_timestamp
from pdbench.imports.manifest import IMPORT_SEED, imported_manifest
from pdbench.rng import derive_seed
from pdbench.storage.manifest import write_manifest as write_manifest_file
from pdbench.storage.schema import ImportRecord, RunFiles

__all__ = [
    "IMPORT_SEED",
    "ImportedVerdict",
    "finish_imported_run",
    "imported_scoring",
    "write_pairwise_run",
    "write_records",
    "write_verdicts",
]

"""The seed of an imported run: only the bootstrap's resamples are drawn from it."""


@dataclass(frozen=True, slots=True)
class ImportedVerdict:
    """One verdict read from a source."""

    question_id: str
    judge: str
    first: str
    """The author of the answer shown first (A)."""
    second: str
    """The author of the answer shown second (B)."""
    verdict: Verdict | None
    """None: the source holds no usable verdict (recorded as invalid)."""
    raw_reply: str
    is_named: bool = False
    """Whether the judge was shown the authors' names."""


def imported_scoring(*, pairwise: PairwiseConfig) -> dict[str, Any]:
    """The manifest's ``scoring`` of an imported arena run: the arena's defaults."""
    anomaly = AnomalyConfig()
    return ArenaScoring(
        normalization="shift",
        question_filter=QuestionFilterConfig(),
        bootstrap=SeededBootstrap(
            n=BootstrapConfig().n, seed=derive_seed(IMPORT_SEED, "bootstrap")
        ),
        anomaly=SeededAnomaly(**anomaly.model_dump(), seed=derive_seed(IMPORT_SEED, "anomaly")),
        min_judgments=3,
        identity_leaks="flag",
        rationales=None,
        self_assessment=False,
        tricks=TrickScoring(share=0.0, fell_below=3.0),
        diversity=None,
        pairwise=pairwise,
    ).model_dump(mode="json")


def reference_player(verdicts: list[ImportedVerdict]) -> str | None:
    """The author in every verdict (a fixed reference, as in the Council's design), if one
    is; the first in name order when two are."""
    if not verdicts:
        return None
    common = set.intersection(*({v.first, v.second} for v in verdicts))
    return min(common) if common else None


def write_pairwise_run(
    run_dir: Path,
    verdicts: Iterable[ImportedVerdict],
    *,
    run_id: str,
    record: ImportRecord,
    pairwise: PairwiseConfig,
) -> dict[str, int]:
    """Write ``verdicts`` into the (empty) ``run_dir`` as a completed arena run; the counts."""
    started_at = utc_timestamp()
    n_verdicts = write_verdicts(run_dir / ArenaFiles.PAIRWISE_JUDGMENTS, verdicts, run_id=run_id)
    return finish_imported_run(
        run_dir,
        {"pairwise_judgments": n_verdicts},
        run_id=run_id,
        record=record,
        started_at=started_at,
        pairwise=pairwise,
    )


def finish_imported_run(
    run_dir: Path,
    counts: dict[str, int],
    *,
    run_id: str,
    record: ImportRecord,
    started_at: str,
    pairwise: PairwiseConfig,
) -> dict[str, int]:
    """Close an imported arena run whose records are written: an empty ``calls.jsonl`` (no
    provider call was recorded) and the manifest; the counts, ``calls`` (0) added."""
    (run_dir / RunFiles.CALLS).touch()
    counts = {**counts, "calls": 0}
    config = {"game": "arena", "run_id": run_id, "seed": IMPORT_SEED, "players": []}
    write_manifest_file(
        run_dir,
        imported_manifest(
            "arena",
            run_id,
            config=config,
            record=record,
            started_at=started_at,
            counts=counts,
            scoring=imported_scoring(pairwise=pairwise),
        ),
    )
    return counts


def write_records(path: Path, records: Iterable[BaseModel]) -> int:
    """One JSON line per record into ``path`` (replaced); the number written."""
    written = 0
    with path.open("w", encoding="utf-8") as lines:
        for line in records:
            lines.write(line.model_dump_json() + "\n")
            written += 1
    return written


def write_verdicts(path: Path, verdicts: Iterable[ImportedVerdict], *, run_id: str) -> int:
    """One ``pairwise_judgments.jsonl`` line per verdict (the second showing of a pair by the
    same judge, named alike, is its swapped order); the number written."""
    seen: Counter[tuple[str, str, str, str, bool]] = Counter()

    def record(verdict: ImportedVerdict) -> PairwiseJudgmentRecord:
        low, high = sorted((verdict.first, verdict.second))
        key = (verdict.question_id, verdict.judge, low, high, verdict.is_named)
        order_index = min(seen[key], 1)
        seen[key] += 1
        return PairwiseJudgmentRecord(
            run_id=run_id,
            attempts=1,
            prompt_sha256="not recorded",
            pair_id=f"{verdict.question_id}:{low}|{high}",
            question_id=verdict.question_id,
            judge=verdict.judge,
            first_player=verdict.first,
            second_player=verdict.second,
            first_answer_id=None,
            second_answer_id=None,
            order_index=order_index,
            is_named=verdict.is_named,
            verdict=verdict.verdict,
            is_valid=verdict.verdict is not None,
            raw_reply=verdict.raw_reply,
        )

    return write_records(path, (record(verdict) for verdict in verdicts))
