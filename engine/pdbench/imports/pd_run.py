"""Writing imported PD matches as a run directory, line for line like a played run's.

An importer turns its source into :class:`ImportedMatch` objects (actions as ``C``/``D``,
payoffs when the source has them) and hands them to :func:`write_pd_run`, which numbers the
replicates of each condition in the order met, computes missing payoffs from the payoff
table, adds the running totals and writes ``rounds.jsonl``, ``matches.jsonl``, an empty
``calls.jsonl`` (no provider call was recorded) and the manifest. The first round line and
the match line of every match are validated against the record contracts
(:class:`~pdbench.pd.records.RoundRecord`, :class:`~pdbench.pd.records.MatchRecord`);
the rest are filled in from the same template, so every line has the contract's keys in its
order. What the source never recorded (match seed, validity, attempts, timestamps) is null.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.clock import utc_timestamp
from pdbench.imports.base import ImportInputError, ImportOptions, ImportSummary
from pdbench.imports.manifest import IMPORT_SEED, imported_manifest
from pdbench.imports.staging import staged_run_dir
from pdbench.pd.config import MetricsConfig, PayoffsConfig, metric_params
from pdbench.pd.records import MatchRecord, PDFiles, RoundRecord
from pdbench.pd.round_lines import MATCH_KEYS, OUTCOME_KEYS, ROUND_KEYS
from pdbench.storage.jsonl import dumps_line
from pdbench.storage.manifest import write_manifest as write_manifest_file
from pdbench.storage.schema import SCHEMA_VERSION, ImportRecord, RunFiles

__all__ = ["IMPORT_SEED", "ImportedMatch", "import_pd_run", "write_pd_run"]


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


def import_pd_run(
    matches: Iterable[ImportedMatch],
    output_dir: Path,
    options: ImportOptions,
    *,
    record: ImportRecord,
    payoffs: PayoffsConfig | Callable[[], PayoffsConfig],
    said: Callable[[dict[str, int]], str],
) -> ImportSummary:
    """Stage the completed PD run of ``matches`` into ``output_dir`` (:func:`write_pd_run`,
    read as it is written); what the import command prints is ``said`` of the counts."""
    with staged_run_dir(output_dir, overwrite=options.overwrite) as staging:
        counts = write_pd_run(
            staging,
            matches,
            run_id=options.run_id or output_dir.name,
            payoffs=payoffs,
            record=record,
        )
    return ImportSummary(run_dir=output_dir, game="pd", counts=counts, lines=[said(counts)])


def write_pd_run(
    run_dir: Path,
    matches: Iterable[ImportedMatch],
    *,
    run_id: str,
    payoffs: PayoffsConfig | Callable[[], PayoffsConfig],
    record: ImportRecord,
) -> dict[str, int]:
    """Write ``matches`` into the (empty) ``run_dir`` as a completed PD run; the counts.
    ``payoffs`` is the run's table, or (when every match records its payoffs) the function
    that gives it once every match is read."""
    started_at = utc_timestamp()
    table = _payoff_table(payoffs) if isinstance(payoffs, PayoffsConfig) else {}
    conditions: dict[str, dict[str, Any]] = {}
    replicates: dict[str, int] = {}
    totals = _Totals()
    with (
        (run_dir / PDFiles.ROUNDS).open("w", encoding="utf-8", buffering=1 << 20) as rounds,
        (run_dir / PDFiles.MATCHES).open("w", encoding="utf-8") as match_lines,
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
    if not isinstance(payoffs, PayoffsConfig):
        payoffs = payoffs()
    counts = {"rounds": totals.rounds, "matches": totals.matches, "calls": 0}
    config = _config(run_id, payoffs=payoffs, conditions=conditions, longest=totals.longest)
    manifest = imported_manifest(
        "pd",
        run_id,
        config=config,
        record=record,
        started_at=started_at,
        counts=counts,
        metric_params=metric_params(MetricsConfig(), seed=IMPORT_SEED),
    )
    write_manifest_file(run_dir, manifest)
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


_OUTCOME_KEYS = (*OUTCOME_KEYS, "agent_a_cum_payoff", "agent_b_cum_payoff")
"""The keys that change per round besides ``round_index``; they follow each other."""
_ROUND_AT = ROUND_KEYS.index("round_index")
_OUTCOME_AT = ROUND_KEYS.index(_OUTCOME_KEYS[0])
if ROUND_KEYS[_OUTCOME_AT : _OUTCOME_AT + len(_OUTCOME_KEYS)] != _OUTCOME_KEYS:
    raise ValueError("a round line's outcome keys no longer follow each other")


def _json_fields(line: dict[str, Any], keys: tuple[str, ...]) -> str:
    """``"k":v,...`` of ``keys`` of ``line``, as the JSONL encoder writes them."""
    return dumps_line({key: line[key] for key in keys})[1:-2]


def _round_lines(
    match: ImportedMatch,
    *,
    run_id: str,
    replicate: int,
    table: dict[tuple[str, str], tuple[float, float]],
) -> str:
    """Every round line of ``match``, as one text. The fields fixed for the match are
    serialised once; the first line is validated against the contract and must equal what
    the JSONL encoder writes for it, so every line has the contract's keys and encoding."""
    line = _fixed_fields(match, run_id=run_id, replicate=replicate)
    head = "{" + _json_fields(line, ROUND_KEYS[:_ROUND_AT]) + ',"round_index":'
    middle = "," + _json_fields(line, ROUND_KEYS[_ROUND_AT + 1 : _OUTCOME_AT]) + ","
    tail = "," + _json_fields(line, ROUND_KEYS[_OUTCOME_AT + len(_OUTCOME_KEYS) :]) + "}\n"
    given = match.payoffs_a is not None and match.payoffs_b is not None
    total_a = total_b = 0.0
    parts = []
    for index, (a, b) in enumerate(zip(match.actions_a, match.actions_b, strict=True)):
        if given:
            pay_a, pay_b = float(match.payoffs_a[index]), float(match.payoffs_b[index])  # type: ignore[index]
        else:
            pay_a, pay_b = table[(a, b)]
        total_a += pay_a
        total_b += pay_b
        parts.append(
            f'{head}{index + 1}{middle}"agent_a_intended_action":"{a}",'
            f'"agent_b_intended_action":"{b}","agent_a_action":"{a}","agent_b_action":"{b}",'
            f'"agent_a_payoff":{pay_a!r},"agent_b_payoff":{pay_b!r},'
            f'"agent_a_cum_payoff":{total_a!r},"agent_b_cum_payoff":{total_b!r}{tail}'
        )
    if not (math.isfinite(total_a) and math.isfinite(total_b)):
        raise ImportInputError(
            f"match {match.condition}/{replicate}: its payoffs do not add up to a finite number "
            "(a payoff too large or not a number)"
        )
    _check_first_line(parts[0], line)
    return "".join(parts)


def _fixed_fields(match: ImportedMatch, *, run_id: str, replicate: int) -> dict[str, Any]:
    """A round line's fields that hold for the whole match (the others None)."""
    line: dict[str, Any] = dict.fromkeys(ROUND_KEYS)
    line.update(
        **_match_identity(match, run_id=run_id, replicate=replicate),
        agent_a_valid=match.valid[0],
        agent_b_valid=match.valid[1],
        agent_a_attempts=_attempts(match.kinds[0]),
        agent_b_attempts=_attempts(match.kinds[1]),
        horizon_type="fixed",
        fixed_n=len(match.actions_a),
    )
    return line


def _match_identity(match: ImportedMatch, *, run_id: str, replicate: int) -> dict[str, Any]:
    """The fields a match's round lines and its match line share."""
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "match_id": f"{match.condition}/{replicate}",
        "condition": match.condition,
        "replicate": replicate,
        "agent_a_name": match.names[0],
        "agent_b_name": match.names[1],
        "agent_a_kind": match.kinds[0],
        "agent_b_kind": match.kinds[1],
    }


def _check_first_line(text: str, fixed: dict[str, Any]) -> None:
    """The first round line is a valid :class:`RoundRecord` written as the encoder writes it."""
    record = RoundRecord.model_validate_json(text)
    expected = record.model_dump(mode="json", exclude={"prompts", "raw_responses"})
    if dumps_line(expected) != text or any(expected[k] != v for k, v in fixed.items() if v):
        raise ValueError(f"an imported round line breaks the record contract: {text}")


def _attempts(kind: str) -> int | None:
    """A policy makes no provider call; an LLM's calls were not recorded."""
    return 0 if kind == "policy" else None


def _match_line(match: ImportedMatch, *, run_id: str, replicate: int) -> str:
    n = len(match.actions_a)
    line: dict[str, Any] = dict.fromkeys(MATCH_KEYS)
    line.update(
        **_match_identity(match, run_id=run_id, replicate=replicate),
        horizon_type="fixed",
        planned_rounds=n,
        rounds_played=n,
        status="ok",
    )
    MatchRecord.model_validate(line)
    return dumps_line(line)


def _config(
    run_id: str, *, payoffs: PayoffsConfig, conditions: dict[str, dict[str, Any]], longest: int
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
