"""A small PD run directory written by hand, record by record, through the schema types.

Every match has hand-chosen actions so that the tests can state the expected metrics by hand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pdbench.pd.records import MatchRecord, PDFiles, RoundRecord
from pdbench.storage.schema import CallRecord, RunFiles, RunManifest

__all__ = ["PAYOFFS", "PlannedMatch", "write_run_dir"]

PAYOFFS = {
    ("C", "C"): (3.0, 3.0),
    ("C", "D"): (0.0, 5.0),
    ("D", "C"): (5.0, 0.0),
    ("D", "D"): (1.0, 1.0),
}
_STAMP = "2025-01-01T00:00:00Z"


@dataclass(frozen=True)
class PlannedMatch:
    """One match: actions as strings of C/D per agent, and what the engine recorded."""

    condition: str
    replicate: int
    actions_a: str
    actions_b: str
    kind_a: str = "policy"
    kind_b: str = "policy"
    invalid_rounds_a: tuple[int, ...] = ()
    """Rounds (1-based) in which agent A's last reply stayed invalid (3 attempts)."""
    status: str | None = "ok"
    """``ok``/``aborted``, or None for a match with no match record (a crash cut it short)."""

    @property
    def match_id(self) -> str:
        return f"{self.condition}/{self.replicate}"


def _rounds(run_id: str, match: PlannedMatch) -> list[RoundRecord]:
    records = []
    cum_a = cum_b = 0.0
    for index, (action_a, action_b) in enumerate(
        zip(match.actions_a, match.actions_b, strict=True), 1
    ):
        payoff_a, payoff_b = PAYOFFS[(action_a, action_b)]
        cum_a += payoff_a
        cum_b += payoff_b
        invalid = index in match.invalid_rounds_a
        records.append(
            RoundRecord(
                run_id=run_id,
                match_id=match.match_id,
                condition=match.condition,
                replicate=match.replicate,
                round_index=index,
                match_seed=1000 + match.replicate,
                agent_a_name=f"{match.kind_a}_a",
                agent_b_name=f"{match.kind_b}_b",
                agent_a_kind=match.kind_a,
                agent_b_kind=match.kind_b,
                agent_a_intended_action=action_a,
                agent_b_intended_action=action_b,
                agent_a_action=action_a,
                agent_b_action=action_b,
                agent_a_payoff=payoff_a,
                agent_b_payoff=payoff_b,
                agent_a_cum_payoff=cum_a,
                agent_b_cum_payoff=cum_b,
                agent_a_valid=not invalid,
                agent_b_valid=True,
                agent_a_attempts=(3 if invalid else 1) if match.kind_a == "llm" else 0,
                agent_b_attempts=0,
                horizon_type="fixed",
                fixed_n=len(match.actions_a),
                stop_prob=None,
                timestamp_utc=_STAMP,
            )
        )
    return records


def _match(run_id: str, match: PlannedMatch) -> MatchRecord:
    return MatchRecord(
        run_id=run_id,
        match_id=match.match_id,
        condition=match.condition,
        replicate=match.replicate,
        match_seed=1000 + match.replicate,
        agent_a_name=f"{match.kind_a}_a",
        agent_b_name=f"{match.kind_b}_b",
        agent_a_kind=match.kind_a,
        agent_b_kind=match.kind_b,
        horizon_type="fixed",
        planned_rounds=len(match.actions_a),
        rounds_played=len(match.actions_a),
        status=match.status or "ok",
        abort_reason="invalid output after retries" if match.status == "aborted" else None,
        started_at=_STAMP,
        finished_at=_STAMP,
    )


def _calls(run_id: str, match: PlannedMatch, extra_invalid_round: int | None) -> list[CallRecord]:
    if match.kind_a != "llm":
        return []
    statuses: list[tuple[int, str]] = []
    for index in range(1, len(match.actions_a) + 1):
        invalid = index in match.invalid_rounds_a
        statuses += [(index, "invalid")] * 3 if invalid else [(index, "ok")]
    if extra_invalid_round is not None:
        statuses += [(extra_invalid_round, "invalid")] * 3
    return [
        CallRecord(
            run_id=run_id,
            call_id=f"{match.match_id}/{number}",
            game="pd",
            phase="pd_round",
            agent="agent_a",
            match_id=match.match_id,
            condition=match.condition,
            replicate=match.replicate,
            round_index=index,
            attempt=1,
            provider="mock",
            model="mock-tft",
            prompt_sha256="0" * 64,
            latency_ms=2.0,
            tokens_in=100,
            tokens_out=2,
            tokens_reasoning=1,
            cost_usd=0.001,
            # an invalid reply of the fixture is one cut at the token limit
            finish_reason="length" if status == "invalid" else "stop",
            truncated=status == "invalid",
            status=status,
            timestamp_utc=_STAMP,
        )
        for number, (index, status) in enumerate(statuses)
    ]


def write_run_dir(
    run_dir: Path,
    matches: list[PlannedMatch],
    *,
    collapse_k: int = 3,
    collapse_threshold: float = 0.2,
    bootstrap_n: int = 200,
    run_id: str = "fixture",
) -> Path:
    """Write rounds, matches, calls and the manifest of ``matches`` into ``run_dir``.

    An aborted LLM match gets three invalid calls for the round after its last one (the
    replies that made the engine abort it).
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    rounds = [record for match in matches for record in _rounds(run_id, match)]
    finished = [_match(run_id, match) for match in matches if match.status is not None]
    calls = [
        record
        for match in matches
        for record in _calls(
            run_id, match, len(match.actions_a) + 1 if match.status == "aborted" else None
        )
    ]
    for name, records in (
        (PDFiles.ROUNDS, rounds),
        (PDFiles.MATCHES, finished),
        (RunFiles.CALLS, calls),
    ):
        (run_dir / name).write_text("".join(r.model_dump_json() + "\n" for r in records))
    manifest = RunManifest(
        run_id=run_id,
        game="pd",
        # a match without its matches.jsonl line was cut short: the run did not complete
        status="completed" if all(m.status is not None for m in matches) else "interrupted",
        seed=7,
        config_path="configs/experiment.yaml",
        config_sha256="0" * 64,
        config={},
        metric_params={
            "collapse_k": collapse_k,
            "collapse_threshold": collapse_threshold,
            "bootstrap_n": bootstrap_n,
            "bootstrap_seed": 12345,
            "ecosystem_generations": 3,
            "moran_population": 4,
            "moran_repetitions": 20,
        },
        python="3.12",
        platform="linux",
        started_at=_STAMP,
        finished_at=_STAMP,
    )
    (run_dir / RunFiles.MANIFEST).write_text(json.dumps(manifest.model_dump(), indent=2))
    return run_dir
