"""Whether a PD run's numbers measure behaviour or reply validity: the fallback share shown
beside cooperation, and the warnings ``pdbench run`` and ``pdbench aggregate`` print below
the condition table.

An LLM agent whose replies stay invalid plays its configured fallback action; every metric
of moves but ``cooperation_rate_valid`` counts that move as played (``docs/metrics.md``). When
more than :data:`FALLBACK_WARNING_SHARE` of an agent's moves in a condition were fallbacks,
its cooperation there measures how often its replies were valid, and the summary says so;
likewise for a compared pair of conditions whose agents on one side fell back at shares that
differ by more than the threshold. The shares are the marts' counts (``n_fallback_moves_*``
over ``n_rounds`` of ``aggregates.parquet``); this module only compares them with the
threshold and words the lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pdbench.number_text import plural, share_text
from pdbench.pd.marts import PDMart
from pdbench.tables import built_mart_rows, decimals, mart_rows

__all__ = [
    "FALLBACK_WARNING_SHARE",
    "MOSTLY_FALLBACK_SHARE",
    "FallbackCount",
    "fallback_counts",
    "fallback_warnings",
    "is_mostly_fallback",
    "standing_name",
]

FALLBACK_WARNING_SHARE = 0.10
"""Above this share of an agent's moves being fallbacks (or this difference between two
compared conditions), the summary warns that cooperation measures reply validity."""
MOSTLY_FALLBACK_SHARE = 0.5
"""Above this share of its moves being fallbacks, a seat or an agent plays its fallback, not
its behaviour: the summaries never rank it as the model's (a seat is left out of the highest
and lowest; an agent of the standings is marked)."""


def is_mostly_fallback(share: float | None) -> bool:
    """Whether more than :data:`MOSTLY_FALLBACK_SHARE` of the moves were fallbacks (None: a
    policy, which has none)."""
    return share is not None and share > MOSTLY_FALLBACK_SHARE


def standing_name(agent: str, share: float | None) -> str:
    """An agent's name as the standings write it: ``ALLC`` or, when its moves were mostly
    fallbacks (``agent_fallback_move_share`` of ``tournament_standings.parquet``),
    ``llm (mostly fallback moves: 70.0%)``, its place then being its fallback's, not the
    model's."""
    if not is_mostly_fallback(share):
        return agent
    return f"{agent} (mostly fallback moves: {share_text(float(share or 0.0))})"


@dataclass(frozen=True, slots=True)
class FallbackCount:
    """One LLM agent's fallback moves in one condition (all its ok replicates)."""

    condition: str
    side: str
    """``a`` or ``b``."""
    agent: str
    n_fallback: int
    n_moves: int
    cooperation_valid: float | None
    """Its cooperation among valid moves (condition mean; None when it made none)."""

    @property
    def share(self) -> float:
        """Share of its moves that were fallbacks."""
        return self.n_fallback / self.n_moves if self.n_moves else 0.0

    def text(self) -> str:
        """``33/36 (92%)``; ``none (a policy)`` for the stand-in of a policy."""
        if not self.n_moves:
            return "none (a policy)"
        return f"{self.n_fallback}/{self.n_moves} ({self.share:.0%})"


def fallback_counts(run_dir: Path) -> dict[tuple[str, str], FallbackCount]:
    """The fallback counts of every LLM agent, by ``(condition, side)``."""
    columns = ["condition", "n_rounds"]
    for side in "ab":
        columns += [
            f"agent_{side}_name",
            f"n_fallback_moves_{side}",
            f"cooperation_rate_valid_{side}",
        ]
    rows = mart_rows(
        run_dir / PDMart.AGGREGATES,
        columns=tuple(columns),
        where="level = 'condition' and n_replicates > 0",
        order_by="condition",
    )
    counts = {}
    for condition, n_rounds, *per_side in rows:
        for index, side in enumerate("ab"):
            agent, n_fallback, cooperation_valid = per_side[3 * index : 3 * index + 3]
            if n_fallback is not None:  # NULL for a policy
                counts[condition, side] = FallbackCount(
                    condition, side, agent, int(n_fallback), int(n_rounds), cooperation_valid
                )
    return counts


def _agent_warning(count: FallbackCount) -> str:
    return (
        f"warning: {count.n_fallback} of {plural(count.n_moves, 'move')} of {count.agent} "
        f"(agent_{count.side} in {count.condition}) were fallback moves after invalid replies; "
        "cooperation here measures reply validity, not behaviour "
        f"(cooperation among its valid moves: {decimals(count.cooperation_valid)})"
    )


def _compared_pairs(run_dir: Path, tables: dict[str, int]) -> list[tuple[str, str]]:
    return built_mart_rows(
        run_dir,
        tables,
        PDMart.COMPARISONS,
        columns=("distinct condition_1", "condition_2"),
        where="condition_1 is not null",
        order_by="condition_1, condition_2",
    )


def _pair_warning(first: FallbackCount, second: FallbackCount) -> str:
    return (
        f"warning: {first.condition} vs {second.condition}: agent_{first.side} fell back in "
        f"{first.text()} vs {second.text()} of its moves; a difference in cooperation between "
        "them measures reply validity as much as behaviour (compare cooperation_rate_valid)"
    )


def fallback_warnings(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """The warnings of a run: each LLM agent above the threshold in a condition, then each
    compared pair whose fallback shares on one side differ by more than it."""
    if not tables.get(PDMart.AGGREGATES):
        return []
    counts = fallback_counts(run_dir)
    lines = [
        _agent_warning(count) for count in counts.values() if count.share > FALLBACK_WARNING_SHARE
    ]
    for first_condition, second_condition in _compared_pairs(run_dir, tables):
        for side in "ab":
            first = counts.get((first_condition, side))
            second = counts.get((second_condition, side))
            if first is None and second is None:
                continue
            first = first or FallbackCount(first_condition, side, "", 0, 0, None)
            second = second or FallbackCount(second_condition, side, "", 0, 0, None)
            if abs(first.share - second.share) > FALLBACK_WARNING_SHARE:
                lines.append(_pair_warning(first, second))
    return lines
