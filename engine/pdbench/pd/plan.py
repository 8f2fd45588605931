"""The matches of a PD config, planned before anything is played.

Every condition x replicate is one match; its length and seeds are drawn from the run seed by
name (see :mod:`pdbench.pd.experiment`), never from the order matches are played in, so the
plan is the same for a dry run, a run, a resume and the call estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdbench.errors import ConfigError
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.horizon import fixed_length, geometric_length
from pdbench.pd.noise import noise_seed
from pdbench.rng import derive_seed

__all__ = ["SIDES", "MatchPlan", "plan_matches", "planned_rounds"]

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
