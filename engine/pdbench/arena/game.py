"""Humanity's Last Arena as a :class:`pdbench.game.Game`."""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.config import ArenaConfig
from pdbench.arena.marts import ArenaMart
from pdbench.arena.plan import estimate_arena, plan_calls, summary_lines
from pdbench.arena.players import check_arena_providers
from pdbench.arena.records import ARENA_RECORDS, ArenaFiles
from pdbench.arena.runner import run_arena
from pdbench.arena.series import SERIES_MANIFEST
from pdbench.arena.summary import leaderboard_table
from pdbench.config.loader import LoadedConfig
from pdbench.game import Game, Marts, PlayOptions, RunResult, Series
from pdbench.number_text import plural
from pdbench.storage.schema import RunFiles

__all__ = ["ArenaGame"]


class ArenaGame(Game):
    """N players write, rate, answer and judge questions, blind; players ranked."""

    name = "arena"
    title = "Humanity's Last Arena"
    config_model = ArenaConfig
    viewer = "pdbench.ui.arena.pages:render"
    overview = "pdbench.arena.overview:arena_findings"
    commands = "pdbench.arena.cli_commands:add_commands"
    power = "pdbench.arena.power:arena_power_lines"
    report_sections = "pdbench.arena.report_sections:arena_sections"
    example_config = "configs/arena.yaml"
    records = ARENA_RECORDS
    series = Series(
        manifest=SERIES_MANIFEST,
        title="series of arena tournaments",
        viewer="pdbench.ui.arena.series_page:page",
        overview="pdbench.arena.overview:series_findings",
        report_sections="pdbench.arena.report_sections:series_sections",
    )
    marts = Marts(
        dbt_tag="arena",
        first_records=ArenaFiles.QUESTIONS,
        other_first_records=(ArenaFiles.PAIRWISE_JUDGMENTS,),
        required_files=(RunFiles.CALLS,),
        dbt_threads=2,
        viewer_marts=tuple(ArenaMart),
        summary=leaderboard_table,
    )

    def check_providers(self, loaded: LoadedConfig, *, keys: bool = True) -> None:
        check_arena_providers(loaded, keys=keys)

    def summary_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        return summary_lines(loaded.config, run_dir=run_dir)

    def plan_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        config = loaded.config
        plan = plan_calls(config)
        total = sum(p.calls for p in plan)
        return [
            f"dry run: would make at most {total} provider calls into {run_dir}",
            *summary_lines(config, run_dir=run_dir),
            "calls per phase (before re-asks):",
            *(
                f"  {phase.phase}: {'exactly' if phase.exact else 'at most'} {phase.calls}"
                for phase in plan
            ),
            f"each call may be re-asked up to {config.max_retries} times",
            *estimate_arena(loaded).lines(),
        ]

    def needs_dbt_while_playing(self, loaded: LoadedConfig) -> bool:
        config: ArenaConfig = loaded.config
        return config.question_filter.kind != "none"

    def play(self, loaded: LoadedConfig, *, options: PlayOptions) -> RunResult:
        def phase_progress(phase: str, done: int, total: int) -> None:
            if options.on_progress is not None:
                options.on_progress(phase, done, total, "")
            if done == total and options.on_line is not None:
                options.on_line(f"{phase}: {plural(total, 'call')} done")

        return run_arena(
            loaded,
            **options.runner_arguments(),
            on_progress=phase_progress,
            on_line=options.on_line,
        )

    def counts_text(self, counts: dict[str, int]) -> str:
        assessed = counts.get("self_assessments")
        return (
            f"{plural(counts['questions'], 'question')} ({counts['kept_questions']} kept), "
            f"{plural(counts['question_ratings'], 'rating')}, "
            f"{plural(counts['answers'], 'answer')}, "
            f"{plural(counts['judgments'], 'judgement')}, "
            + (f"{assessed} self-assessments, " if assessed is not None else "")
            + (
                f"{verdicts} pairwise verdicts, "
                if (verdicts := counts.get("pairwise_judgments"))
                else ""
            )
            + (f"{embedded} embeddings, " if (embedded := counts.get("embeddings")) else "")
            + f"{counts['calls']} provider calls"
        )
