"""Play a tournament into a run directory: generate, rate, filter, answer, judge, with
``self_assessment`` self-assess (:mod:`pdbench.arena.self_assess`), with ``diversity`` embed
(:mod:`pdbench.arena.diversity`).

Each phase plans its call tasks from the seed and the previous phase's records and asks them
up to ``max_concurrency`` at once (:func:`pdbench.run.concurrency.run_concurrently`),
through the run's one provider runtime (cache, prices, per-model limits, back-off, cancel;
:mod:`pdbench.arena.players`). Output order is canonical: each task's ``calls.jsonl`` lines
are written as soon as every earlier task of the phase is done, and the phase's record file
is written in task order once the phase is complete; then the phase is marked done in the
manifest. The rows are the same at any concurrency. The question filter runs between rating
and answering, from the dbt models (:mod:`pdbench.arena.filter`).

Batch mode (players with ``batch: true``, :mod:`pdbench.providers.batch_lane`): a phase is
asked in rounds. A task whose request goes into a batch waits; once a round is asked, every
player's queued requests are submitted (each batch id written into the manifest's
``batches`` at once), collected, and the waiting tasks are asked again, finding their
replies settled; a re-ask or a rationale makes one more round. ``batches`` is emptied when
the phase is done; a resumed run first collects the batches it names.

Seeds are derived by name: the mock of player ``p`` is seeded ``(seed, "provider", "arena",
p)``; presentation orders ``(seed, "order", phase, p)``; ids from the seed and what they name.
The manifest is written ``running`` first (with the ``scoring`` the SQL reads) and rewritten
``completed``, ``interrupted`` (Ctrl-C) or ``failed`` at the end, with the counts
(the run frame, :mod:`pdbench.run.frame`). Resume: :mod:`pdbench.arena.resume`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from pdbench.arena.config import ArenaConfig
from pdbench.arena.context import PhaseContext
from pdbench.arena.diversity import play_embed
from pdbench.arena.filter import kept_question_ids
from pdbench.arena.pairwise_phase import PlannedVerdict, pairwise_records, pairwise_tasks
from pdbench.arena.phases import (
    answer_records,
    answer_tasks,
    generate_tasks,
    judge_tasks,
    judgment_records,
    question_records,
    rate_tasks,
    rating_records,
    rationale_task,
    read_answer,
    reader_for,
)
from pdbench.arena.players import PlayerPool, arena_llm_fields, check_arena_providers
from pdbench.arena.progress import PhaseProgress, ProgressCallback
from pdbench.arena.prompts import ArenaTemplates, Phase
from pdbench.arena.resume import PHASE_FILES, prepare_arena_resume
from pdbench.arena.self_assess import self_assess_tasks, self_assessment_records
from pdbench.arena.tasks import CallOutcome, CallTask, ask
from pdbench.config.loader import LoadedConfig
from pdbench.game import RunResult
from pdbench.providers.gateway import AwaitingBatch
from pdbench.providers.runtime import ProviderRuntime
from pdbench.run.concurrency import run_concurrently
from pdbench.run.frame import RunSpec, play_run
from pdbench.run.run_dir import LiveManifest
from pdbench.run.runtime import build_runtime
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.schema import BatchRef, RunFiles, RunManifest, RunStatus

__all__ = ["arena_runtime", "run_arena"]


def arena_runtime(
    config: ArenaConfig, *, use_cache: bool = True, sleep: Callable[[float], None] | None = None
) -> ProviderRuntime:
    """The provider runtime of a tournament: the cache is opened only when a player uses it
    or a real model embeds (``diversity``)."""
    embeds = config.diversity is not None and config.diversity.embedding.provider != "mock"
    wants_cache = use_cache and (embeds or any(p.uses_cache for p in config.players))
    return build_runtime(config, seed=config.seed, wants_cache=wants_cache, sleep=sleep)


@dataclass
class _Tournament:
    """The state of one tournament while it plays: phases done, their records, the files."""

    context: PhaseContext
    pool: PlayerPool
    runtime: ProviderRuntime
    calls: JsonlWriter
    run_dir: Path
    records: dict[Phase, list[dict[str, Any]]]
    """The records of every phase done, in play order."""
    kept_calls: int
    """``calls.jsonl`` lines kept from before a resume."""
    on_progress: ProgressCallback | None
    on_line: Callable[[str], None] | None = None
    """Where a line for the user goes (the batches submitted and waited for)."""

    def ask_all(self, tasks: list[CallTask], *, live: LiveManifest) -> list[CallOutcome]:
        """Every task of a phase, concurrently; outcomes in task order, calls written so.

        In batch mode a task whose request went into a batch waits: the tasks still waiting
        are asked again once the batches are in (:meth:`run_batches`), and so on until every
        task is done (a re-ask or a rationale is one more batch)."""
        phase = PhaseProgress(tasks, write=self.calls.write, on_progress=self.on_progress)
        waiting = list(enumerate(tasks))
        while waiting:
            waiting = self._ask_round(waiting, phase=phase)
            if waiting:
                self.run_batches(phase=tasks[0].phase, live=live)
        return phase.outcomes()

    def _ask_round(
        self, items: list[tuple[int, CallTask]], *, phase: PhaseProgress
    ) -> list[tuple[int, CallTask]]:
        """Ask ``items``; those that wait for a batch, in order."""
        config = self.context.config

        def one(item: tuple[int, CallTask]) -> tuple[CallOutcome | None, list[dict[str, Any]]]:
            _, task = item
            records: list[dict[str, Any]] = []
            read = reader_for(task, context=self.context)
            lent = self.pool.client(task.player, record=records.append, phase=task.phase)
            try:
                with lent as client:
                    outcome = ask(task, client=client, read=read, max_retries=config.max_retries)
                    follow = (
                        rationale_task(outcome, context=self.context)
                        if task.phase == "judge"
                        else None
                    )
                    if follow is not None:
                        answer = ask(
                            follow, client=client, read=read_answer, max_retries=config.max_retries
                        )
                        outcome = replace(outcome, follow_up=answer)
            except AwaitingBatch:
                return None, []
            return outcome, records

        results = run_concurrently(
            items,
            one,
            max_concurrency=config.max_concurrency,
            on_done=phase.done,
            cancel=self.runtime.cancel,
        )
        return [item for item, (outcome, _) in zip(items, results, strict=True) if outcome is None]

    def run_batches(self, *, phase: str, live: LiveManifest) -> None:
        """Submit every player's queued requests as batches (each written into the manifest
        as soon as it exists), then wait for them all and settle their outcomes."""
        submitted: dict[str, list[str]] = {}
        for name, lane in self.pool.lanes.items():
            if lane.queued:
                ref = {"provider": lane.provider, "model": lane.model, "agent": name}

                def note(batch_id: str, ref: dict[str, Any] = ref) -> None:
                    entry = BatchRef(batch_id=batch_id, phase=phase, **ref)
                    live.update(batches=[*live.manifest.batches, entry])

                submitted[name] = lane.submit(on_submitted=note)
        if not submitted:
            raise RuntimeError(f"{phase}: tasks wait for a batch, but no request was queued")
        if self.on_line is not None:
            ids = [batch_id for batch_ids in submitted.values() for batch_id in batch_ids]
            self.on_line(f"{phase}: waiting for {_batches(ids)}")
        for name, batch_ids in submitted.items():
            self.pool.lanes[name].collect(batch_ids)

    def adopt_batches(self, batches: list[BatchRef]) -> None:
        """Wait for the batches a stopped run submitted and settle their outcomes, so that
        their requests are not submitted (nor paid for) again."""
        if batches and self.on_line is not None:
            ids = [ref.batch_id for ref in batches]
            self.on_line(f"collecting the stopped run's {_batches(ids)}")
        for ref in batches:
            lane = self.pool.lanes.get(ref.agent)
            refused = lane.adopt(ref.batch_id) if lane is not None else None
            if refused is not None and self.on_line is not None:
                self.on_line(
                    f"{ref.batch_id} given up, its requests go into new batches: {refused}"
                )

    def play(
        self,
        phase: Phase,
        *,
        live: LiveManifest,
        plan: Callable[[], list[CallTask]],
        to_records: Callable[[list[CallOutcome]], list[dict[str, Any]]],
    ) -> list[dict[str, Any]]:
        """The records of ``phase``: read back when it was done before, else played, written
        and marked done."""
        if phase in self.records:
            return self.records[phase]
        records = to_records(self.ask_all(plan(), live=live))
        with JsonlWriter(self.run_dir / PHASE_FILES[phase]) as writer:
            for record in records:
                writer.write(record, flush=False)
        self.records[phase] = records
        live.update(phases_done=list(self.records), batches=[])
        return records

    def play_all(self, *, live: LiveManifest, kept_questions: Callable[[Path], list[str]]) -> None:
        """Generate, rate, filter, answer, judge, self-assess (with ``self_assessment``):
        every phase not done yet, in order."""
        context = self.context
        questions = self.play(
            "generate",
            live=live,
            plan=lambda: generate_tasks(context),
            to_records=lambda outcomes: question_records(outcomes, context=context),
        )
        if not questions and self.on_line is not None:
            self.on_line("warning: no player wrote a usable question (see the generate calls in "
                         "calls.jsonl): nothing will be rated, answered or judged")  # fmt: skip
        self.play(  # the filter reads the ratings from their file
            "rate",
            live=live,
            plan=lambda: rate_tasks(questions, context=context),
            to_records=lambda outcomes: rating_records(outcomes, context=context),
        )
        if "answer" in self.records:
            kept_ids = {a["question_id"] for a in self.records["answer"]}
        else:
            kept_ids = set(kept_questions(self.run_dir))
        kept = [q for q in questions if q["question_id"] in kept_ids]
        answers = self.play(
            "answer",
            live=live,
            plan=lambda: answer_tasks(kept, context=context),
            to_records=lambda outcomes: answer_records(outcomes, context=context),
        )
        absolute = context.config.judging != "pairwise"  # else the judging phase is empty
        self.play(
            "judge",
            live=live,
            plan=lambda: judge_tasks(answers, questions=kept, context=context) if absolute else [],
            to_records=lambda outcomes: judgment_records(outcomes, context=context),
        )
        if context.config.self_assessment:
            self.play(
                "self_assess",
                live=live,
                plan=lambda: self_assess_tasks(answers, questions=kept, context=context),
                to_records=lambda outcomes: self_assessment_records(outcomes, context=context),
            )
        if context.config.judging != "absolute":
            self.play_pairwise(live=live, answers=answers, questions=kept)
        diversity = context.config.diversity
        if diversity is not None and "embed" not in self.records:
            embedded = partial(self.on_progress, "embed") if self.on_progress else None
            self.records["embed"] = play_embed(  # type: ignore[index]
                questions, answers, config=diversity, run_id=context.config.run_id,
                write_call=self.calls.write, run_dir=self.run_dir, cache=self.runtime.cache,
                prices=self.runtime.prices, on_request=embedded)  # fmt: skip
            live.update(phases_done=list(self.records), batches=[])

    def play_pairwise(
        self, *, live: LiveManifest, answers: list[dict[str, Any]], questions: list[dict[str, Any]]
    ) -> None:
        """The pairwise judging phase (:mod:`pdbench.arena.pairwise_phase`)."""
        planned: list[PlannedVerdict] = []

        def plan() -> list[CallTask]:
            planned[:] = pairwise_tasks(answers, questions=questions, context=self.context)
            return [verdict.task for verdict in planned]

        self.play(
            "pairwise",  # type: ignore[arg-type]
            live=live,
            plan=plan,
            to_records=lambda outcomes: pairwise_records(
                outcomes, planned=planned, context=self.context
            ),
        )

    def counts(self) -> dict[str, int]:
        """The manifest's counts: lines per file, invalid records, kept questions."""
        counts = {"calls": self.kept_calls + self.calls.count}
        names = {"generate": "questions", "rate": "question_ratings", "answer": "answers",
                 "judge": "judgments", "self_assess": "self_assessments",
                 "pairwise": "pairwise_judgments", "embed": "embeddings"}  # fmt: skip
        for phase, records in self.records.items():
            counts[names[phase]] = len(records)
        invalid = {"rate": "invalid_ratings", "answer": "invalid_answers",
                   "judge": "invalid_judgments", "pairwise": "invalid_pairwise_judgments",
                   "self_assess": "invalid_self_assessments"}  # fmt: skip
        by_kind: dict[str, list[dict[str, Any]]] = {
            kind: lines for kind, lines in self.records.items()
        }
        for kind, name in invalid.items():
            if kind in by_kind:
                counts[name] = sum(not r["is_valid"] for r in by_kind[kind])
        if "answer" in self.records:
            counts["kept_questions"] = len({a["question_id"] for a in self.records["answer"]})
        return counts


def _batches(ids: list[str]) -> str:
    """``"2 batches (id, id)"``."""
    return f"{len(ids)} batch{'' if len(ids) == 1 else 'es'} ({', '.join(ids)})"


def run_arena(
    loaded: LoadedConfig,
    *,
    output_dir: str | Path | None = None,
    overwrite: bool = False,
    resume: bool = False,
    use_cache: bool = True,
    runtime: ProviderRuntime | None = None,
    on_progress: ProgressCallback | None = None,
    on_line: Callable[[str], None] | None = None,
    kept_questions: Callable[[Path], list[str]] = kept_question_ids,
) -> RunResult:
    """Play the tournament of ``loaded`` into its run directory and return what was written.

    ``resume`` continues a stopped run directory (:mod:`pdbench.arena.resume`);
    ``use_cache=False`` is ``--no-cache``; ``runtime`` replaces the runtime built from the
    config (tests inject a sleep that does not wait); ``on_line`` gets a line for the user
    whenever batches are waited for; ``kept_questions`` decides which
    questions are answered (default: the dbt models).
    """
    config: ArenaConfig = loaded.config
    check_arena_providers(loaded)
    templates = ArenaTemplates.from_files(root=loaded.root, paths=config.prompts.paths())
    run_dir = config.run_dir(output_dir)
    owns_runtime = runtime is None
    runtime = runtime or arena_runtime(config, use_cache=use_cache)
    llms, scoring = arena_llm_fields(config), config.scoring()
    spec = RunSpec.of("arena", loaded, config, run_dir=run_dir, llms=llms, scoring=scoring)
    play = _ArenaPlay(
        run_dir,
        lambda records, kept_calls: _Tournament(
            context=PhaseContext(
                config=config, templates=templates, pairwise_template=_pairwise_template(loaded)
            ),
            pool=PlayerPool(config, runtime=runtime),
            runtime=runtime,
            calls=JsonlWriter(run_dir / RunFiles.CALLS),
            run_dir=run_dir,
            records=records,
            kept_calls=kept_calls,
            on_progress=on_progress,
            on_line=on_line,
        ),
        kept_questions=kept_questions,
    )
    return play_run(
        spec, play, resume=resume, overwrite=overwrite, runtime=runtime, owns_runtime=owns_runtime
    )


class _ArenaPlay:
    """The arena's part of a run (:class:`pdbench.run.frame.GamePlay`): the phases not done
    yet, played by one tournament."""

    def __init__(
        self,
        run_dir: Path,
        tournament: Callable[[dict[Phase, list[dict[str, Any]]], int], _Tournament],
        *,
        kept_questions: Callable[[Path], list[str]],
    ) -> None:
        self.run_dir = run_dir
        self.new_tournament = tournament
        self.kept_questions = kept_questions
        self.tournament: _Tournament | None = None

    def start(self, manifest: RunManifest) -> RunManifest:
        self.tournament = self.new_tournament({}, 0)
        return manifest

    def resume(self, manifest: RunManifest) -> RunManifest:
        state = prepare_arena_resume(self.run_dir, manifest)
        self.tournament = self.new_tournament(dict(state.records), state.calls)
        return state.manifest

    def play(self, live: LiveManifest) -> None:
        assert self.tournament is not None
        self.tournament.adopt_batches(live.manifest.batches)
        self.tournament.play_all(live=live, kept_questions=self.kept_questions)

    def close(self, status: RunStatus) -> None:
        if self.tournament is not None:
            self.tournament.calls.close()

    def counts(self) -> dict[str, int]:
        return self.tournament.counts() if self.tournament is not None else {"calls": 0}


def _pairwise_template(loaded: LoadedConfig) -> str:
    config: ArenaConfig = loaded.config
    if config.judging == "absolute":
        return ""
    return (loaded.root / config.pairing.prompt).read_text(encoding="utf-8")
