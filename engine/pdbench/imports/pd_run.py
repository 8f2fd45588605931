"""Writing imported PD matches as a run directory, line for line like a played run's.

An importer turns its source into :class:`ImportedMatch` objects (actions as ``C``/``D``,
payoffs when the source has them) and hands them to :func:`write_pd_run`, which numbers the
replicates of each condition in the order met, computes missing payoffs from the payoff
table, adds the running totals and writes ``rounds.jsonl``, ``matches.jsonl``, an empty
``calls.jsonl`` (no provider call was recorded) and the manifest. The first round line and
the match line of every match are validated against the record contracts
(:class:`~pdbench.storage.schema.RoundRecord`, :class:`~pdbench.storage.schema.MatchRecord`);
the rest are filled in from the same template, so every line has the contract's keys in its
order. What the source never recorded (match seed, validity, attempts, timestamps) is null.
"""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.clock import utc_timestamp
from pdbench.pd.config import MetricsConfig, PayoffsConfig, metric_params
from pdbench.storage.jsonl import dumps_line
from pdbench.storage.manifest import canonical_sha256, git_commit, package_versions
from pdbench.storage.manifest import write_manifest as write_manifest_file
from pdbench.storage.schema import (
    SCHEMA_VERSION,
    ImportRecord,
    MatchRecord,
    RoundRecord,
    RunFiles,
    RunManifest,
    line_keys,
)

__all__ = ["IMPORT_SEED", "ImportedMatch", "write_pd_run"]

IMPORT_SEED = 0
"""The seed of an imported run: only the bootstrap's resamples are drawn from it."""

_ROUND_KEYS = line_keys(RoundRecord)
_MATCH_KEYS = line_keys(MatchRecord)


@dataclass(slots=True)
class ImportedMatch:
    """One match read from a source: the rounds in order, round 1 first."""

    condition: str
    names: tuple[str, str]
    """Display names of agent A and agent B."""
    kinds: tuple[str, str]
    """``llm`` or ``policy`` for each."""
    actions_a: list[str]
    """``C``/``D`` per round."""
    actions_b: list[str]
    payoffs_a: list[float] | None = None
    """Payoffs per round as the source recorded them; None: from the payoff table."""
    payoffs_b: list[float] | None = None
    valid: tuple[bool | None, bool | None] = (None, None)
    """Whether each agent's replies were valid, when the source says; None: not recorded."""


@dataclass
class _Totals:
    rounds: int = 0
    matches: int = 0
    longest: int = 0


def write_pd_run(
    run_dir: Path,
    matches: Iterable[ImportedMatch],
    *,
    run_id: str,
    payoffs: PayoffsConfig,
    record: ImportRecord,
) -> dict[str, int]:
    """Write ``matches`` into the (empty) ``run_dir`` as a completed PD run; the counts."""
    started_at = utc_timestamp()
    table = _payoff_table(payoffs)
    conditions: dict[str, dict[str, Any]] = {}
    replicates: dict[str, int] = {}
    totals = _Totals()
    with (
        (run_dir / RunFiles.ROUNDS).open("w", encoding="utf-8", buffering=1 << 20) as rounds,
        (run_dir / RunFiles.MATCHES).open("w", encoding="utf-8") as match_lines,
    ):
        for match in matches:
            replicate = replicates.get(match.condition, 0)
            replicates[match.condition] = replicate + 1
            conditions.setdefault(match.condition, _condition_config(match))
            rounds.write(_round_lines(match, run_id=run_id, replicate=replicate, table=table))
            match_lines.write(_match_line(match, run_id=run_id, replicate=replicate))
            totals.rounds += len(match.actions_a)
            totals.matches += 1
            totals.longest = max(totals.longest, len(match.actions_a))
    (run_dir / RunFiles.CALLS).touch()
    counts = {"rounds": totals.rounds, "matches": totals.matches, "calls": 0}
    config = _config(run_id, payoffs=payoffs, conditions=conditions, longest=totals.longest)
    write_manifest_file(
        run_dir,
        _manifest(run_id, config=config, record=record, started_at=started_at, counts=counts),
    )
    return counts


def _payoff_table(payoffs: PayoffsConfig) -> dict[tuple[str, str], tuple[float, float]]:
    matrix = payoffs.model_dump()
    return {(cell[0], cell[1]): (float(a), float(b)) for cell, (a, b) in matrix.items()}


def _condition_config(match: ImportedMatch) -> dict[str, Any]:
    """The condition as the manifest's config lists it: its two imported agents."""
    return {
        "name": match.condition,
        "agent_a": {"type": "imported", "name": match.names[0], "kind": match.kinds[0]},
        "agent_b": {"type": "imported", "name": match.names[1], "kind": match.kinds[1]},
    }


def _round_lines(
    match: ImportedMatch,
    *,
    run_id: str,
    replicate: int,
    table: dict[tuple[str, str], tuple[float, float]],
) -> str:
    """Every round line of ``match``, as one text."""
    n = len(match.actions_a)
    line: dict[str, Any] = dict.fromkeys(_ROUND_KEYS)
    line.update(
        schema_version=SCHEMA_VERSION,
        run_id=run_id,
        match_id=f"{match.condition}/{replicate}",
        condition=match.condition,
        replicate=replicate,
        agent_a_name=match.names[0],
        agent_b_name=match.names[1],
        agent_a_kind=match.kinds[0],
        agent_b_kind=match.kinds[1],
        agent_a_valid=match.valid[0],
        agent_b_valid=match.valid[1],
        agent_a_attempts=_attempts(match.kinds[0]),
        agent_b_attempts=_attempts(match.kinds[1]),
        horizon_type="fixed",
        fixed_n=n,
    )
    given_a, given_b = match.payoffs_a, match.payoffs_b
    total_a = total_b = 0.0
    parts = []
    for index, (a, b) in enumerate(zip(match.actions_a, match.actions_b, strict=True)):
        if given_a is not None and given_b is not None:
            pay_a, pay_b = float(given_a[index]), float(given_b[index])
        else:
            pay_a, pay_b = table[(a, b)]
        total_a += pay_a
        total_b += pay_b
        line.update(
            round_index=index + 1,
            agent_a_intended_action=a,
            agent_b_intended_action=b,
            agent_a_action=a,
            agent_b_action=b,
            agent_a_payoff=pay_a,
            agent_b_payoff=pay_b,
            agent_a_cum_payoff=total_a,
            agent_b_cum_payoff=total_b,
        )
        if index == 0:
            RoundRecord.model_validate(line)
        parts.append(dumps_line(line))
    return "".join(parts)


def _attempts(kind: str) -> int | None:
    """A policy makes no provider call; an LLM's calls were not recorded."""
    return 0 if kind == "policy" else None


def _match_line(match: ImportedMatch, *, run_id: str, replicate: int) -> str:
    n = len(match.actions_a)
    line: dict[str, Any] = dict.fromkeys(_MATCH_KEYS)
    line.update(
        schema_version=SCHEMA_VERSION,
        run_id=run_id,
        match_id=f"{match.condition}/{replicate}",
        condition=match.condition,
        replicate=replicate,
        agent_a_name=match.names[0],
        agent_b_name=match.names[1],
        agent_a_kind=match.kinds[0],
        agent_b_kind=match.kinds[1],
        horizon_type="fixed",
        planned_rounds=n,
        rounds_played=n,
        status="ok",
    )
    MatchRecord.model_validate(line)
    return dumps_line(line)


def _config(
    run_id: str, *, payoffs: PayoffsConfig, conditions: dict[str, dict], longest: int
) -> dict[str, Any]:
    """The manifest's config of an imported run: what the metrics read of a played run's
    config (payoffs, horizon, metrics, conditions), agents of type ``imported``."""
    return {
        "game": "pd",
        "run_id": run_id,
        "seed": IMPORT_SEED,
        "payoffs": payoffs.model_dump(mode="json"),
        "horizon": {"type": "fixed", "n": max(longest, 1)},
        "metrics": MetricsConfig().model_dump(mode="json"),
        "conditions": list(conditions.values()),
    }


def _manifest(
    run_id: str,
    *,
    config: dict[str, Any],
    record: ImportRecord,
    started_at: str,
    counts: dict[str, int],
) -> RunManifest:
    return RunManifest(
        run_id=run_id,
        game="pd",
        status="completed",
        seed=IMPORT_SEED,
        config_path=f"import:{record.format}",
        config_sha256=canonical_sha256(config),
        config=config,
        metric_params=metric_params(MetricsConfig(), seed=IMPORT_SEED),
        versions=package_versions(),
        git_commit=git_commit(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        started_at=started_at,
        finished_at=utc_timestamp(),
        counts=counts,
        source="imported",
        imported=record,
    )
