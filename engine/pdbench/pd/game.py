"""The iterated Prisoner's Dilemma as a :class:`pdbench.game.Game`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.game import Game, Marts, PlayOptions, RunResult
from pdbench.number_text import plural
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.content import absent_content
from pdbench.pd.estimate import estimate_calls, total_rounds_line
from pdbench.pd.experiment import check_executor, check_providers, run_experiment
from pdbench.pd.marts import PDMart
from pdbench.pd.plan import MatchPlan, plan_matches
from pdbench.pd.records import PD_RECORDS, PDFiles
from pdbench.pd.summary import condition_table, config_lines
from pdbench.storage.schema import RunFiles

__all__ = ["PDGame"]


class PDGame(Game):
    """Conditions x replicates of two-player matches; policies and LLM agents."""

    name = "pd"
    title = "Iterated Prisoner's Dilemma"
    config_model = ExperimentConfig
    viewer = "pdbench.ui.pd.pages:render"
    overview = "pdbench.pd.overview:pd_findings"
    commands = "pdbench.pd.cli_commands:add_commands"
    power = "pdbench.pd.power:pd_power_lines"
    report_sections = "pdbench.pd.report_sections:pd_sections"
    example_config = "configs/experiment.yaml"
    records = PD_RECORDS
    marts = Marts(
        dbt_tag="pd",
        first_records=PDFiles.ROUNDS,
        required_files=(PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS),
        non_empty_files=(PDFiles.ROUNDS,),
        # one model at a time: DuckDB already runs each query on every core, and two heavy
        # queries over millions of rounds side by side only compete for memory and spill
        # (measured on a 10M-round run: 42 s instead of 67 s of dbt build)
        dbt_threads=1,
        one_duckdb_thread_when_small=True,
        # rounds.parquet is optional: without it the viewer reads rounds.jsonl
        viewer_marts=tuple(mart for mart in PDMart if mart is not PDMart.ROUNDS),
        summary=condition_table,
        absent_content=absent_content,
    )

    def check_providers(self, loaded: LoadedConfig, *, keys: bool = True) -> None:
        check_providers(loaded, keys=keys)

    def check_executor(self, loaded: LoadedConfig) -> None:
        check_executor(loaded)

    def with_replicates(self, loaded: LoadedConfig, replicates: int) -> LoadedConfig:
        config = loaded.config.model_copy(update={"replicates": replicates})
        return replace(loaded, config=config)

    def summary_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        return config_lines(loaded, run_dir=run_dir)

    def plan_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        plans = plan_matches(loaded.config)
        return [
            f"dry run: would write {plural(len(plans), 'match', 'matches')} to {run_dir}",
            *config_lines(loaded, run_dir=run_dir),
            *(f"  {plan.match_id}: {plural(plan.planned_rounds, 'round')}" for plan in plans),
            total_rounds_line(loaded.config, plans=plans),
            *estimate_calls(loaded, plans=plans).lines(),
        ]

    def play(self, loaded: LoadedConfig, *, options: PlayOptions) -> RunResult:
        on_progress = options.on_progress
        total = len(plan_matches(loaded.config))
        done = 0

        def on_match_done(plan: MatchPlan, _: dict[str, Any]) -> None:
            nonlocal done
            done += 1
            if on_progress is not None:
                on_progress("matches", done, total, plan.match_id)

        return run_experiment(
            loaded,
            **options.runner_arguments(),
            on_match_done=on_match_done,
            executor=options.executor,
            chunk_rounds=options.chunk_rounds,
        )

    def counts_text(self, counts: dict[str, int]) -> str:
        return (
            f"{plural(counts['matches'], 'match', 'matches')} "
            f"({counts['aborted_matches']} aborted), {plural(counts['rounds'], 'round')}, "
            f"{plural(counts['calls'], 'provider call')}"
        )
