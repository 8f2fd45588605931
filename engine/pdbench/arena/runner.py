"""Play a tournament into a run directory: generate, rate, filter, answer, judge.

Each phase plans its call tasks from the seed and the previous phase's records, runs them
through an executor (one by one by default; any order gives the same rows), and writes one
record per task in task order. The question filter runs between rating and answering, from the
dbt models (:mod:`pdbench.arena.filter`).

Seeds are derived by name: the mock of player ``p`` is seeded ``(seed, "provider", "arena",
p)``; presentation orders ``(seed, "order", phase, p)``; ids from the seed and what they name.
The manifest is written ``running`` first (with the ``scoring`` the SQL reads) and rewritten
``completed``, ``interrupted`` (Ctrl-C) or ``failed`` at the end, with the counts.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pdbench.arena.config import ArenaConfig
from pdbench.arena.filter import kept_question_ids
from pdbench.arena.phases import (
    PhaseContext,
    answer_records,
    answer_tasks,
    generate_tasks,
    judge_tasks,
    judgment_records,
    question_records,
    rate_tasks,
    rating_records,
    reader_for,
)
from pdbench.arena.prompts import ArenaTemplates, Phase
from pdbench.arena.tasks import CallOutcome, CallTask, Executor, PlayerClient, ask
from pdbench.arena.tasks import run_sequentially as _sequential
from pdbench.config import LoadedConfig
from pdbench.core.clock import utc_timestamp
from pdbench.core.rng import derive_seed
from pdbench.errors import ConfigError
from pdbench.providers.base import make_provider, provider_problem
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.mock_arena import SIGN_OFFS, ArenaMockSettings
from pdbench.runners.run_experiment import prepare_run_dir
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.manifest import new_manifest, write_manifest
from pdbench.storage.schema import RunFiles, RunManifest

__all__ = [
    "ArenaResult",
    "build_clients",
    "check_arena_providers",
    "mock_settings",
    "run_arena",
]

ProgressCallback = Callable[[Phase, int, int], None]
"""``(phase, calls done, calls planned)`` after every task."""


@dataclass
class ArenaResult:
    """What a finished (or stopped) tournament wrote."""

    run_dir: Path
    manifest: RunManifest
    counts: dict[str, int] = field(default_factory=dict)


def check_arena_providers(loaded: LoadedConfig) -> None:
    """Fail before anything is written if a player's provider cannot be built here."""
    for i, player in enumerate(loaded.config.players):
        problem = provider_problem(player.provider)
        if problem:
            raise ConfigError(problem, path=loaded.path, field=f"players[{i}].provider")


def mock_settings(config: ArenaConfig, index: int) -> ArenaMockSettings:
    """The mock of player ``index``: its traits, its signature, and the signature (never the
    name) of the player it favours."""
    signatures = [
        p.mock.signature or SIGN_OFFS[i % len(SIGN_OFFS)] for i, p in enumerate(config.players)
    ]
    names = [p.name for p in config.players]
    mock = config.players[index].mock
    favoured = signatures[names.index(mock.favours)] if mock.favours else None
    return ArenaMockSettings(
        answer_skill=mock.answer_skill,
        question_quality=mock.question_quality,
        judge_leniency=mock.judge_leniency,
        judge_noise=mock.judge_noise,
        favour_bonus=mock.favour_bonus,
        signature=signatures[index],
        favoured_signature=favoured,
        invalid_rate=mock.invalid_rate,
        latency_ms=mock.latency_ms,
        seed=mock.seed,
    )


def build_clients(
    config: ArenaConfig, *, record_call: Callable[[dict], None]
) -> dict[str, PlayerClient]:
    """Player name -> its provider behind a gateway that records every call."""
    clients = {}
    for index, player in enumerate(config.players):
        settings = mock_settings(config, index) if player.provider == "mock" else player
        client = make_provider(
            player.provider,
            settings=settings,
            seed=derive_seed(config.seed, "provider", "arena", player.name),
        )
        gateway = ProviderGateway(
            client=client,
            provider=player.provider,
            model=player.model,
            run_id=config.run_id,
            record=record_call,
        )
        clients[player.name] = PlayerClient(gateway=gateway, temperature=player.temperature)
    return clients


class _Phases:
    """Runs the tasks of one phase and writes their records."""

    def __init__(
        self,
        *,
        context: PhaseContext,
        clients: dict[str, PlayerClient],
        executor: Executor,
        on_progress: ProgressCallback | None,
    ) -> None:
        self.context = context
        self.clients = clients
        self.executor = executor
        self.on_progress = on_progress

    def run(self, tasks: list[CallTask]) -> list[CallOutcome]:
        done = 0
        max_retries = self.context.config.max_retries

        def one(task: CallTask) -> CallOutcome:
            nonlocal done
            outcome = ask(
                task,
                client=self.clients[task.player],
                read=reader_for(task, context=self.context),
                max_retries=max_retries,
            )
            done += 1
            if self.on_progress is not None:
                self.on_progress(task.phase, done, len(tasks))
            return outcome

        return self.executor(one, tasks)


def _write_all(writer: JsonlWriter, records: list[dict]) -> None:
    for record in records:
        writer.write(record, flush=False)
    writer.flush()


def run_arena(
    loaded: LoadedConfig,
    *,
    output_dir: str | Path | None = None,
    overwrite: bool = False,
    executor: Executor = _sequential,
    on_progress: ProgressCallback | None = None,
    kept_questions: Callable[[Path], list[str]] = kept_question_ids,
) -> ArenaResult:
    """Play the tournament of ``loaded`` into its run directory and return what was written.

    ``kept_questions`` decides which questions are answered (default: the dbt models).
    """
    config: ArenaConfig = loaded.config
    check_arena_providers(loaded)
    templates = ArenaTemplates.from_files(root=loaded.root, paths=config.prompts.paths())
    run_dir = config.run_dir(output_dir)
    prepare_run_dir(run_dir, overwrite=overwrite)
    manifest = new_manifest(
        run_id=config.run_id,
        game="arena",
        seed=config.seed,
        config_path=loaded.path,
        config=config.model_dump(mode="json"),
        metric_params={},
        scoring=config.scoring(),
        started_at=utc_timestamp(),
    )
    write_manifest(run_dir, manifest)
    writers = {
        name: JsonlWriter(run_dir / file)
        for name, file in (
            ("calls", RunFiles.CALLS),
            ("questions", RunFiles.QUESTIONS),
            ("question_ratings", RunFiles.QUESTION_RATINGS),
        )
    }
    counts: dict[str, int] = {}
    status = "failed"
    context = PhaseContext(config=config, templates=templates)
    phases = _Phases(
        context=context,
        clients=build_clients(config, record_call=writers["calls"].write),
        executor=executor,
        on_progress=on_progress,
    )
    try:
        questions = question_records(phases.run(generate_tasks(context)), context=context)
        _write_all(writers["questions"], questions)
        ratings = rating_records(
            phases.run(rate_tasks(questions, context=context)), context=context
        )
        _write_all(writers["question_ratings"], ratings)
        kept_ids = set(kept_questions(run_dir))
        kept = [q for q in questions if q["question_id"] in kept_ids]
        writers["answers"] = JsonlWriter(run_dir / RunFiles.ANSWERS)
        answers = answer_records(phases.run(answer_tasks(kept, context=context)), context=context)
        _write_all(writers["answers"], answers)
        writers["judgments"] = JsonlWriter(run_dir / RunFiles.JUDGMENTS)
        tasks = judge_tasks(answers, questions=kept, context=context)
        judgments = judgment_records(phases.run(tasks), context=context)
        _write_all(writers["judgments"], judgments)
        counts.update(
            invalid_ratings=sum(not r["is_valid"] for r in ratings),
            kept_questions=len(kept),
            invalid_answers=sum(not a["is_valid"] for a in answers),
            invalid_judgments=sum(not j["is_valid"] for j in judgments),
        )
        status = "completed"
    except KeyboardInterrupt:
        status = "interrupted"
        raise
    finally:
        for writer in writers.values():
            writer.close()
        counts.update({name: writer.count for name, writer in writers.items()})
        manifest = manifest.model_copy(
            update={"status": status, "finished_at": utc_timestamp(), "counts": counts}
        )
        write_manifest(run_dir, manifest)
    return ArenaResult(run_dir=run_dir, manifest=manifest, counts=counts)
