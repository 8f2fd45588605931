"""Run a PD experiment: every condition x replicate, one match each, into a run directory.

The matches are planned by :mod:`pdbench.pd.plan` and each is played by
:func:`pdbench.pd.match.play_match`; this module prepares the run directory (or picks up the
run to resume), plays the plan and ends the run: files checked, manifest written.

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

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError
from pdbench.game import RunResult
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.inputs import llm_fields, pd_run_spec
from pdbench.pd.match_player import MatchFiles, match_player
from pdbench.pd.plan import SIDES, MatchPlan, plan_matches
from pdbench.pd.resume import prepare_resume
from pdbench.pd.sharded_run import is_sharded, run_sharded
from pdbench.providers.runtime import ProviderRuntime
from pdbench.run.concurrency import run_concurrently
from pdbench.run.executors import Executor, LocalExecutor
from pdbench.run.frame import play_run
from pdbench.run.provider_checks import check_llm_providers
from pdbench.run.run_dir import LiveManifest
from pdbench.run.runtime import build_runtime
from pdbench.storage.schema import RunManifest, RunStatus

__all__ = [
    "check_executor",
    "check_providers",
    "experiment_runtime",
    "llm_agents",
    "run_experiment",
]

_NO_LINES = {"rounds": 0, "matches": 0, "aborted_matches": 0, "calls": 0}
"""The counts of a run that has written nothing yet."""


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
    check_llm_providers(llm_fields(loaded.config), path=loaded.path, keys=keys)


def check_executor(loaded: LoadedConfig) -> None:
    """Refuse, in one line, to play LLM agents in chunks: their matches wait on providers,
    not on CPUs, and the response cache and per-model limits are one process's."""
    if llms := llm_agents(loaded.config):
        i, side, _ = llms[0]
        raise ConfigError(
            "--executor plays policy-only configs in chunks; LLM matches wait on their "
            "providers, not on CPUs: play them in one process and raise max_concurrency",
            path=loaded.path,
            field=f"conditions[{i}].{side}",
        )


def experiment_runtime(
    config: ExperimentConfig,
    *,
    use_cache: bool = True,
    sleep: Callable[[float], None] | None = None,
) -> ProviderRuntime:
    """The provider runtime of a PD run: the cache is opened only when an agent uses it."""
    wants_cache = use_cache and any(agent.uses_cache for _, _, agent in llm_agents(config))
    return build_runtime(config, seed=config.seed, wants_cache=wants_cache, sleep=sleep)


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
    executor: Executor | None = None,
    chunk_rounds: int | None = None,
) -> RunResult:
    """Play every match of ``loaded`` into its run directory and return what was written.

    ``resume`` continues an existing run directory (see :mod:`pdbench.pd.resume`);
    ``use_cache=False`` is ``--no-cache``; ``runtime`` replaces the provider runtime built
    from the config (tests inject a sleep that does not wait). With an ``executor``
    (``--executor dask://...``), or when resuming a run played so, the matches are played in
    chunks of about ``chunk_rounds`` rounds (None: a few chunks per worker,
    :func:`pdbench.pd.chunks.chunk_rounds_for`) into the sharded layout
    (:mod:`pdbench.pd.sharded_run`).

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
    if executor is not None or (resume and is_sharded(run_dir)):
        check_executor(loaded)
        return run_sharded(
            replace(loaded, config=config),
            plans=plans,
            run_dir=run_dir,
            executor=executor or LocalExecutor(),
            resume=resume,
            overwrite=overwrite,
            chunk_rounds=chunk_rounds,
            on_match_done=on_match_done,
        )
    return _play_in_one_process(
        loaded,
        config,
        plans=plans,
        run_dir=run_dir,
        resume=resume,
        overwrite=overwrite,
        runtime=runtime or experiment_runtime(config, use_cache=use_cache),
        owns_runtime=runtime is None,
        on_match_done=on_match_done,
    )


def _play_in_one_process(
    loaded: LoadedConfig,
    config: ExperimentConfig,
    *,
    plans: list[MatchPlan],
    run_dir: Path,
    resume: bool,
    overwrite: bool,
    runtime: ProviderRuntime,
    owns_runtime: bool,
    on_match_done: Callable[[MatchPlan, dict[str, Any]], None] | None,
) -> RunResult:
    """Play ``plans`` in this process (on ``max_concurrency`` threads when LLM agents play)
    into one file per record, within the run frame."""
    spec = pd_run_spec(loaded, config, run_dir)
    play = _LocalPlay(
        loaded, config, run_dir, plans=plans, runtime=runtime, on_match_done=on_match_done
    )
    return play_run(
        spec, play, resume=resume, overwrite=overwrite, runtime=runtime, owns_runtime=owns_runtime
    )


class _LocalPlay:
    """The PD's part of a run in one process (:class:`pdbench.run.frame.GamePlay`): the
    matches left to play, played into the three match files."""

    def __init__(
        self,
        loaded: LoadedConfig,
        config: ExperimentConfig,
        run_dir: Path,
        *,
        plans: list[MatchPlan],
        runtime: ProviderRuntime,
        on_match_done: Callable[[MatchPlan, dict[str, Any]], None] | None,
    ) -> None:
        self.loaded, self.config, self.run_dir, self.plans = loaded, config, run_dir, plans
        self.runtime, self.on_match_done = runtime, on_match_done
        self.todo = plans
        self.resuming = False
        self.files: MatchFiles | None = None

    def start(self, manifest: RunManifest) -> RunManifest:
        self.files = MatchFiles(
            self.run_dir, kept=dict(_NO_LINES), statements=self.config.elicits_strategy
        )
        return manifest

    def resume(self, manifest: RunManifest) -> RunManifest:
        state = prepare_resume(self.run_dir, plan_order=[p.match_id for p in self.plans])
        self.todo = [plan for plan in self.plans if plan.match_id not in state.finished]
        self.resuming = True
        self.files = MatchFiles(
            self.run_dir, kept=state.counts, statements=self.config.elicits_strategy
        )
        return manifest

    def play(self, live: LiveManifest) -> None:
        assert self.files is not None
        workers = self.config.max_concurrency if llm_agents(self.config) else 1
        run_concurrently(
            self.todo,
            match_player(self.loaded, self.config, runtime=self.runtime, files=self.files),
            max_concurrency=workers,
            on_done=self.on_match_done,
            cancel=self.runtime.cancel,
        )
        in_order = workers > 1 or self.resuming
        self.files.finish(
            order={plan.match_id: i for i, plan in enumerate(self.plans)} if in_order else None
        )

    def close(self, status: RunStatus) -> None:
        if self.files is not None:
            self.files.close()

    def counts(self) -> dict[str, int]:
        return self.files.counts() if self.files is not None else dict(_NO_LINES)
