"""Run a PD experiment: every condition x replicate, one match each, into a run directory.

Seeds are derived by name from the run seed, never from execution order:

- match seed: ``(seed, "match", condition, replicate)`` (recorded in every line);
- horizon: ``(seed, "horizon", replicate)``, shared by all conditions of a replicate;
- agent ``reset`` seed: ``(seed, "agent", condition, replicate, side)``;
- provider seed (the mock's): ``(seed, "provider", condition, replicate, side)``;
- execution noise: ``(seed, condition, replicate, "noise", side)`` (see ``pd/noise.py``).

With noise, each round records the intended and the executed actions; agents observe and are
scored on the executed ones.

Writing: nothing is held in memory beyond the history window the agents need. Matches with an
LLM agent write every round line as a dict through ``json.dumps`` and flush it at once.
Policy-only matches run the hot loop of ``pd/policy_match.py`` (the same lines from a
per-match template, written in chunks) and flush when the match ends: a crash then loses only
rounds of the match in progress, which has no ``matches.jsonl`` line yet and is therefore
incomplete either way. ``matches.jsonl`` and ``calls.jsonl`` are flushed per record; a
match's ``matches.jsonl`` line is written after all its rounds and calls, so it marks the
match finished.

Concurrency: with ``max_concurrency > 1`` and at least one LLM match, matches are played on
that many threads (:func:`pdbench.run.concurrency.run_concurrently`). Each appends its
lines as it plays, so the files interleave while the run is going and a crash loses only the
line being written. When the run completes, the three match files are rewritten in plan order
(:mod:`pdbench.pd.match_files`): the final files are byte-for-byte those of a sequential
run, timestamps and latencies aside. Policy-only runs and ``max_concurrency: 1`` play in the
calling thread and are written in plan order directly.

Resume: see :mod:`pdbench.pd.resume`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.clock import utc_timestamp
from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError
from pdbench.game import RunResult
from pdbench.pd.actions import Observation, Turn
from pdbench.pd.agents.base import POLICY_DECISION, Agent, MatchAborted
from pdbench.pd.agents.factory import MatchSetup, build_agent
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.horizon import fixed_length, geometric_length
from pdbench.pd.match_files import (
    match_round_counts,
    raise_if_incomplete,
    rewrite_in_plan_order,
)
from pdbench.pd.noise import noise_seed, noisy
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.policy_match import play_policy_rounds
from pdbench.pd.resume import prepare_resume
from pdbench.pd.round_lines import RoundLineTemplate
from pdbench.providers.runtime import ProviderRuntime
from pdbench.rng import derive_seed
from pdbench.run.concurrency import run_concurrently
from pdbench.run.provider_checks import check_llm_providers
from pdbench.run.run_dir import manifest_lifecycle, prepare_run_dir, resumed
from pdbench.run.runtime import build_runtime
from pdbench.storage.jsonl import JsonlWriter, read_jsonl
from pdbench.storage.manifest import canonical_sha256, new_manifest
from pdbench.storage.run_lock import hold_run_dir
from pdbench.storage.schema import SCHEMA_VERSION, RunFiles, RunStatus

__all__ = [
    "MatchPlan",
    "check_providers",
    "experiment_runtime",
    "llm_agents",
    "plan_matches",
    "planned_rounds",
    "play_match",
    "run_experiment",
]

SIDES = ("agent_a", "agent_b")


@dataclass(frozen=True)
class MatchPlan:
    """One match to play."""

    condition_index: int
    condition: str
    replicate: int
    match_id: str
    match_seed: int
    planned_rounds: int
    noise: float = 0.0
    """Probability that an intended action is flipped."""
    noise_seeds: tuple[int, int] = (0, 0)
    """Seeds of the noise streams of agent A and agent B."""


def planned_rounds(config: ExperimentConfig, *, replicate: int) -> int:
    """The length of every match of ``replicate`` (depends on seed and replicate only)."""
    horizon = config.horizon
    if horizon.type == "fixed":
        return fixed_length(horizon.n)
    return geometric_length(
        stop_prob=horizon.stop_prob,
        max_rounds=horizon.max_rounds,
        seed=config.seed,
        replicate=replicate,
    )


def plan_matches(config: ExperimentConfig, *, replicates: int | None = None) -> list[MatchPlan]:
    """Every condition x replicate, in config order (condition-major)."""
    count = config.replicates if replicates is None else replicates
    total = count * len(config.conditions)
    if total > config.max_matches:
        raise ConfigError(
            f"{count:,} replicates x {len(config.conditions)} conditions = {total:,} matches, "
            f"more than max_matches ({config.max_matches:,}); raise max_matches to play them",
            field="replicates",
        )
    lengths = [planned_rounds(config, replicate=r) for r in range(count)]
    return [
        MatchPlan(
            condition_index=i,
            condition=condition.name,
            replicate=r,
            match_id=f"{condition.name}/{r}",
            match_seed=derive_seed(config.seed, "match", condition.name, r),
            planned_rounds=lengths[r],
            noise=config.noise if condition.noise is None else condition.noise,
            noise_seeds=(
                noise_seed(config.seed, condition=condition.name, replicate=r, side=SIDES[0]),
                noise_seed(config.seed, condition=condition.name, replicate=r, side=SIDES[1]),
            ),
        )
        for i, condition in enumerate(config.conditions)
        for r in range(count)
    ]


def llm_agents(config: ExperimentConfig) -> list[tuple[int, str, Any]]:
    """``(condition index, side, agent config)`` of every LLM agent, in config order."""
    return [
        (i, side, agent)
        for i, condition in enumerate(config.conditions)
        for side in SIDES
        if (agent := getattr(condition, side)).type == "llm"
    ]


def check_providers(loaded: LoadedConfig, *, keys: bool = True) -> None:
    """Fail before anything is written if an agent's provider cannot be built here (its SDK
    is missing, or, with ``keys``, its API key)."""
    llms = ((f"conditions[{i}].{side}", agent) for i, side, agent in llm_agents(loaded.config))
    check_llm_providers(llms, path=loaded.path, keys=keys)


def experiment_runtime(
    config: ExperimentConfig,
    *,
    use_cache: bool = True,
    sleep: Callable[[float], None] | None = None,
) -> ProviderRuntime:
    """The provider runtime of a PD run: the cache is opened only when an agent uses it."""
    wants_cache = use_cache and any(agent.uses_cache for _, _, agent in llm_agents(config))
    return build_runtime(config, seed=config.seed, wants_cache=wants_cache, sleep=sleep)


def play_match(
    plan: MatchPlan,
    *,
    run_id: str,
    agent_a: Agent,
    agent_b: Agent,
    names: tuple[str, str],
    matrix: PayoffMatrix,
    horizon: Any,
    rounds: JsonlWriter,
    store_prompts: bool = False,
) -> dict[str, Any]:
    """Play one match, append its round lines to ``rounds``; return its ``matches.jsonl`` line."""
    started_at = utc_timestamp()
    table = matrix.table()
    kind_a, kind_b = agent_a.kind, agent_b.kind
    llm_a, llm_b = kind_a == "llm", kind_b == "llm"
    flush_each = llm_a or llm_b
    noise_a = noisy(noise=plan.noise, seed=plan.noise_seeds[0]) if plan.noise else None
    noise_b = noisy(noise=plan.noise, seed=plan.noise_seeds[1]) if plan.noise else None
    keep_prompts = store_prompts and flush_each
    needs = (agent_a.history_needed, agent_b.history_needed)
    capacity = None if None in needs else max(max(needs), 1)  # type: ignore[type-var]
    history_a: deque[Turn] = deque(maxlen=capacity)
    history_b: deque[Turn] = deque(maxlen=capacity)
    obs_a = Observation(round_index=1, history=history_a)
    obs_b = Observation(round_index=1, history=history_b)
    fixed_n = horizon.n if horizon.type == "fixed" else None
    stop_prob = horizon.stop_prob if horizon.type == "geometric" else None
    name_a, name_b = names
    match_id, condition, replicate, match_seed = (
        plan.match_id,
        plan.condition,
        plan.replicate,
        plan.match_seed,
    )
    total_a = total_b = 0.0
    played = 0
    status, abort_reason = "ok", None
    decision_a = decision_b = POLICY_DECISION
    write = rounds.write
    try:
        if not flush_each:
            template = RoundLineTemplate(
                run_id=run_id,
                match_id=match_id,
                condition=condition,
                replicate=replicate,
                match_seed=match_seed,
                names=names,
                kinds=(kind_a, kind_b),
                payoffs=table,
                horizon_type=horizon.type,
                fixed_n=fixed_n,
                stop_prob=stop_prob,
            )
            played, total_a, total_b = play_policy_rounds(
                agent_a=agent_a,  # type: ignore[arg-type]
                agent_b=agent_b,  # type: ignore[arg-type]
                template=template,
                payoffs=table,
                rounds=plan.planned_rounds,
                write_text=rounds.write_text,
                noise_a=noise_a,
                noise_b=noise_b,
            )
        else:
            for round_index in range(1, plan.planned_rounds + 1):
                obs_a.round_index = obs_b.round_index = round_index
                intended_a = agent_a.act(obs_a)
                intended_b = agent_b.act(obs_b)
                action_a = noise_a(intended_a) if noise_a else intended_a
                action_b = noise_b(intended_b) if noise_b else intended_b
                if llm_a:
                    decision_a = agent_a.last_decision
                if llm_b:
                    decision_b = agent_b.last_decision
                payoff_a, payoff_b = table[action_a, action_b]
                total_a += payoff_a
                total_b += payoff_b
                record = {
                    "schema_version": SCHEMA_VERSION,
                    "run_id": run_id,
                    "match_id": match_id,
                    "condition": condition,
                    "replicate": replicate,
                    "round_index": round_index,
                    "match_seed": match_seed,
                    "agent_a_name": name_a,
                    "agent_b_name": name_b,
                    "agent_a_kind": kind_a,
                    "agent_b_kind": kind_b,
                    "agent_a_intended_action": intended_a,
                    "agent_b_intended_action": intended_b,
                    "agent_a_action": action_a,
                    "agent_b_action": action_b,
                    "agent_a_payoff": payoff_a,
                    "agent_b_payoff": payoff_b,
                    "agent_a_cum_payoff": total_a,
                    "agent_b_cum_payoff": total_b,
                    "agent_a_valid": decision_a.valid,
                    "agent_b_valid": decision_b.valid,
                    "agent_a_attempts": decision_a.attempts,
                    "agent_b_attempts": decision_b.attempts,
                    "horizon_type": horizon.type,
                    "fixed_n": fixed_n,
                    "stop_prob": stop_prob,
                    "timestamp_utc": utc_timestamp(),
                }
                if keep_prompts:
                    _add_prompts(
                        record, (("agent_a", decision_a, llm_a), ("agent_b", decision_b, llm_b))
                    )
                write(record)
                played = round_index
                history_a.append(Turn(action_a, action_b, payoff_a, payoff_b))
                history_b.append(Turn(action_b, action_a, payoff_b, payoff_a))
                obs_a.own_total = obs_b.opponent_total = total_a
                obs_b.own_total = obs_a.opponent_total = total_b
    except MatchAborted as exc:
        status, abort_reason = "aborted", str(exc)
    finally:
        rounds.flush()
    return {
        "schema_version": SCHEMA_VERSION,
        "run_id": run_id,
        "match_id": match_id,
        "condition": condition,
        "replicate": replicate,
        "match_seed": match_seed,
        "agent_a_name": name_a,
        "agent_b_name": name_b,
        "agent_a_kind": kind_a,
        "agent_b_kind": kind_b,
        "horizon_type": horizon.type,
        "planned_rounds": plan.planned_rounds,
        "rounds_played": played,
        "status": status,
        "abort_reason": abort_reason,
        "started_at": started_at,
        "finished_at": utc_timestamp(),
    }


def _add_prompts(record: dict[str, Any], sides: tuple) -> None:
    prompts, raw = {}, {}
    for key, decision, is_llm in sides:
        if is_llm:
            prompts[key] = {"system": decision.system_prompt, "round": decision.round_prompt}
            raw[key] = list(decision.raw_responses)
    record["prompts"] = prompts
    record["raw_responses"] = raw


def run_experiment(
    loaded: LoadedConfig,
    *,
    replicates: int | None = None,
    output_dir: str | Path | None = None,
    overwrite: bool = False,
    resume: bool = False,
    use_cache: bool = True,
    runtime: ProviderRuntime | None = None,
    on_match_done: Callable[[MatchPlan, dict[str, Any]], None] | None = None,
) -> RunResult:
    """Play every match of ``loaded`` into its run directory and return what was written.

    ``resume`` continues an existing run directory (see :mod:`pdbench.pd.resume`);
    ``use_cache=False`` is ``--no-cache``; ``runtime`` replaces the provider runtime built
    from the config (tests inject a sleep that does not wait).

    The manifest ends ``completed`` only when every match has all its rounds in
    ``rounds.jsonl`` (otherwise :class:`~pdbench.errors.IntegrityError`); ``interrupted`` on
    KeyboardInterrupt and ``failed`` on any other exception, which is then re-raised.
    """
    config: ExperimentConfig = loaded.config
    if replicates is not None:
        config = config.model_copy(update={"replicates": replicates})
    plans = plan_matches(config)
    check_providers(loaded)
    run_dir = config.run_dir(output_dir)
    snapshot = config.model_dump(mode="json")
    kept = {"rounds": 0, "matches": 0, "aborted_matches": 0, "calls": 0}
    owns_runtime = runtime is None
    runtime = runtime or experiment_runtime(config, use_cache=use_cache)
    with hold_run_dir(run_dir, create=not resume):
        if resume:
            state = prepare_resume(
                run_dir,
                config_sha256=canonical_sha256(snapshot),
                plan_order=[plan.match_id for plan in plans],
            )
            kept = state.counts
            todo = [plan for plan in plans if plan.match_id not in state.finished]
            manifest = resumed(state.manifest)
        else:
            prepare_run_dir(run_dir, overwrite=overwrite, config_sha256=canonical_sha256(snapshot))
            todo = plans
            manifest = new_manifest(
                run_id=config.run_id,
                game="pd",
                seed=config.seed,
                config_path=loaded.path,
                config=snapshot,
                metric_params=config.metric_params(),
                started_at=utc_timestamp(),
            )
        runtime.cancel.clear()
        matrix = config.payoffs.to_matrix()
        rounds = JsonlWriter(run_dir / RunFiles.ROUNDS)
        matches = JsonlWriter(run_dir / RunFiles.MATCHES)
        calls = JsonlWriter(run_dir / RunFiles.CALLS)
        has_llm = any(
            condition.agent_a.type == "llm" or condition.agent_b.type == "llm"
            for condition in config.conditions
        )
        workers = config.max_concurrency if has_llm else 1

        def play(plan: MatchPlan) -> dict[str, Any]:
            condition = config.conditions[plan.condition_index]
            setup = MatchSetup(
                run_id=config.run_id,
                seed=config.seed,
                match_id=plan.match_id,
                condition=plan.condition,
                replicate=plan.replicate,
                matrix=matrix,
                root=loaded.root,
                record_call=calls.write,
                runtime=runtime,
                known_length=config.horizon.n if config.horizon.type == "fixed" else None,
                noise=plan.noise,
            )
            agent_a = build_agent(condition.agent_a, side="agent_a", setup=setup)
            agent_b = build_agent(condition.agent_b, side="agent_b", setup=setup)
            match_record = play_match(
                plan,
                run_id=config.run_id,
                agent_a=agent_a,
                agent_b=agent_b,
                names=(condition.agent_a.display_name, condition.agent_b.display_name),
                matrix=matrix,
                horizon=config.horizon,
                rounds=rounds,
                store_prompts=config.store_prompts,
            )
            matches.write(match_record)
            return match_record

        def done(plan: MatchPlan, match_record: dict[str, Any]) -> None:
            if on_match_done is not None:
                on_match_done(plan, match_record)

        final: dict[str, int] = {}

        def close_files() -> None:
            for writer in (rounds, matches, calls):
                writer.close()

        def finish() -> None:
            """Put the files in plan order, and refuse to call a run with lost rounds complete.

            A run played in the calling thread is checked by size: each file must have grown by
            exactly the bytes handed to it (free, whatever the run's size). A run played on
            several threads, or resumed, is rewritten in plan order, and that pass counts each
            match's rounds against its ``rounds_played``.
            """
            close_files()
            if workers > 1 or resume:
                totals, match_rounds = rewrite_in_plan_order(
                    run_dir, order={plan.match_id: i for i, plan in enumerate(plans)}
                )
                final.update(totals)
                raise_if_incomplete(run_dir, match_rounds.problems())
            elif not all(w.written_whole() for w in (rounds, matches, calls)):
                problems = match_round_counts(run_dir).problems()
                raise_if_incomplete(run_dir, problems or ["a file holds other bytes than written"])

        def wrap_up(status: RunStatus) -> dict[str, int]:
            runtime.abandon_in_flight()  # calls a stopped run no longer waits for
            close_files()
            if owns_runtime and runtime.cache is not None:
                runtime.cache.close()
            return final or {
                "rounds": kept["rounds"] + rounds.count,
                "matches": kept["matches"] + matches.count,
                "aborted_matches": _count_aborted(run_dir),
                "calls": kept["calls"] + calls.count,
            }

        with manifest_lifecycle(run_dir, manifest, on_end=wrap_up) as live:
            run_concurrently(
                todo, play, max_concurrency=workers, on_done=done, cancel=runtime.cancel
            )
            finish()
        return RunResult(run_dir=run_dir, manifest=live.manifest, counts=live.manifest.counts)


def _count_aborted(run_dir: Path) -> int:
    return sum(
        record.get("status") == "aborted" for record in read_jsonl(run_dir / RunFiles.MATCHES)
    )
