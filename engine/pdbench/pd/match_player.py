"""Playing matches into a folder of record files: what a run in one process and a chunk on
a cluster worker share.

:class:`MatchFiles` holds the three files the matches append to (``rounds.jsonl``,
``matches.jsonl``, ``calls.jsonl``) and how they end; :func:`match_player` is the function
that plays one planned match into them and returns its ``matches.jsonl`` line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.pd.agents.factory import MatchSetup, build_agent
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.match import play_match
from pdbench.pd.match_files import (
    match_round_counts,
    raise_if_incomplete,
    rewrite_in_plan_order,
)
from pdbench.pd.plan import MatchPlan
from pdbench.pd.records import PDFiles
from pdbench.providers.runtime import ProviderRuntime
from pdbench.storage.jsonl import JsonlWriter, read_jsonl
from pdbench.storage.schema import RunFiles

__all__ = ["MatchFiles", "count_aborted", "match_player"]


def match_player(
    loaded: LoadedConfig,
    config: ExperimentConfig,
    *,
    runtime: ProviderRuntime,
    files: MatchFiles,
) -> Callable[[MatchPlan], dict[str, Any]]:
    """What plays one planned match into ``files`` and returns its match line."""
    matrix = config.payoffs.to_matrix()

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
            record_call=files.calls.write,
            runtime=runtime,
            known_length=config.horizon.n if config.horizon.type == "fixed" else None,
            noise=plan.noise,
            labels=config.action_labels(),
        )
        match_record = play_match(
            plan,
            run_id=config.run_id,
            agent_a=build_agent(condition.agent_a, side="agent_a", setup=setup),
            agent_b=build_agent(condition.agent_b, side="agent_b", setup=setup),
            names=(condition.agent_a.display_name, condition.agent_b.display_name),
            matrix=matrix,
            horizon=config.horizon,
            rounds=files.rounds,
            store_prompts=config.store_prompts,
            statements=files.statements,
        )
        files.matches.write(match_record)
        return match_record

    return play


class MatchFiles:
    """The files the matches of a run append to (and ``statements.jsonl`` when an agent
    states its strategy), and how they end: checked (and put in plan order) when the run
    completes, counted whatever the end."""

    def __init__(self, run_dir: Path, *, kept: dict[str, int], statements: bool = False) -> None:
        self.run_dir = run_dir
        self.rounds = JsonlWriter(run_dir / PDFiles.ROUNDS)
        self.matches = JsonlWriter(run_dir / PDFiles.MATCHES)
        self.calls = JsonlWriter(run_dir / RunFiles.CALLS)
        self.statements = JsonlWriter(run_dir / PDFiles.STATEMENTS) if statements else None
        """``statements.jsonl``, only in a run with an agent asked for its strategy."""
        self._kept = kept
        self._rewritten: dict[str, int] = {}

    def close(self) -> None:
        """Close the three writers (idempotent)."""
        for writer in (self.rounds, self.matches, self.calls, self.statements):
            if writer is not None:
                writer.close()

    def finish(self, *, order: dict[str, int] | None) -> None:
        """Put the files in plan order, and refuse to call a run with lost rounds complete.

        A run played in the calling thread (``order`` None) is checked by size: each file
        must have grown by exactly the bytes handed to it (free, whatever the run's size). A
        run played on several threads, or resumed, is rewritten in the plan ``order`` of its
        match ids, and that pass counts each match's rounds against its ``rounds_played``.
        """
        self.close()
        if order is not None:
            totals, match_rounds = rewrite_in_plan_order(self.run_dir, order=order)
            self._rewritten.update(totals)
            raise_if_incomplete(self.run_dir, match_rounds.problems())
        elif not all(w.written_whole() for w in (self.rounds, self.matches, self.calls)):
            problems = match_round_counts(self.run_dir).problems()
            raise_if_incomplete(self.run_dir, problems or ["a file holds other bytes than written"])

    def counts(self) -> dict[str, int]:
        """The manifest's counts: from the rewrite when there was one, else the lines kept
        from before a resume plus the lines written now."""
        return self._rewritten or {
            "rounds": self._kept["rounds"] + self.rounds.count,
            "matches": self._kept["matches"] + self.matches.count,
            "aborted_matches": count_aborted(self.run_dir),
            "calls": self._kept["calls"] + self.calls.count,
        }


def count_aborted(run_dir: Path) -> int:
    return sum(
        record.get("status") == "aborted" for record in read_jsonl(run_dir / PDFiles.MATCHES)
    )
