"""The arena's scoring settings: the config sections that decide how a tournament is scored,
and :class:`ArenaScoring`, the typed ``scoring`` section of the run manifest that the SQL
models read (``stg_arena_scoring``) and the question filter reads
(:mod:`pdbench.arena.filter`). A played run writes it from its config
(:meth:`pdbench.arena.config.ArenaConfig.scoring`), an imported one from the defaults
(:mod:`pdbench.imports.arena_run`); ``docs/arena_scoring.md`` lists its keys."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pdbench.arena.diversity_config import DiversityConfig
from pdbench.arena.pairwise_config import PairwiseConfig
from pdbench.config.base import StrictModel

__all__ = [
    "AnomalyConfig",
    "ArenaScoring",
    "BootstrapConfig",
    "QuestionFilterConfig",
    "RationaleConfig",
    "SeededAnomaly",
    "SeededBootstrap",
    "TrickScoring",
]


class QuestionFilterConfig(StrictModel):
    """Which rated questions are answered (the dbt question-quality model decides)."""

    kind: Literal["none", "bottom_fraction", "min_score"] = "none"
    """``none``: keep all; ``bottom_fraction``: drop that share of the lowest normalised
    ratings; ``min_score``: keep questions whose normalised rating is >= ``min_score``."""
    fraction: float = Field(default=0.33, ge=0, lt=1)
    """``bottom_fraction`` only: the share of questions dropped."""
    min_score: float = Field(default=4.0, ge=0, le=10)
    """``min_score`` only: the lowest normalised mean rating kept."""


class BootstrapConfig(StrictModel):
    """The seeded bootstrap over questions behind the leaderboard's intervals."""

    n: int = Field(default=1000, ge=1)
    """Replicates."""


class AnomalyConfig(StrictModel):
    """The judge x player bias table (collusion and anomaly flags)."""

    permutations: int = Field(default=1000, ge=1)
    """Permutations behind each p-value."""
    fdr: float = Field(default=0.1, gt=0, lt=1)
    """False discovery rate at which a pair is flagged."""
    min_effect: float = Field(default=0.5, ge=0, le=10)
    """Smallest bias (points) the flag is for: a pair is tested for a bias larger than this,
    not for any bias at all."""


class RationaleConfig(StrictModel):
    """Which judgements are extreme enough to be followed by a request for a rationale."""

    low: int | None = Field(default=0, ge=0, le=10)
    """A judgement at or below this score is followed up (null: no low threshold)."""
    high: int | None = Field(default=10, ge=0, le=10)
    """A judgement at or above this score is followed up (null: no high threshold)."""

    def is_extreme(self, score: int) -> bool:
        """Whether ``score`` calls for a rationale."""
        return (self.low is not None and score <= self.low) or (
            self.high is not None and score >= self.high
        )


class _Section(BaseModel):
    """A part of the manifest's ``scoring``: every key required, no other key."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SeededBootstrap(_Section):
    """The bootstrap as the SQL draws it."""

    n: int
    """Replicates."""
    seed: int
    """The bootstrap's seed, derived from the run's seed by name."""


class SeededAnomaly(_Section):
    """The judge x player bias test as the SQL runs it."""

    permutations: int
    """Permutations behind each p-value."""
    fdr: float
    """False discovery rate at which a pair is flagged."""
    min_effect: float
    """Smallest bias (points) the flag is for."""
    seed: int
    """The permutations' seed, derived from the run's seed by name."""


class TrickScoring(_Section):
    """What the SQL needs of the trick questions."""

    share: float
    """The share of each player's questions that are tricks."""
    fell_below: float
    """An answer scored below this fell for its trick."""


class ArenaScoring(_Section):
    """The manifest's ``scoring``, in the order it is written."""

    normalization: Literal["shift", "scale", "zscore", "none", "fixed_effects"]
    """How every judge's (and rater's) scores are normalised."""
    question_filter: QuestionFilterConfig
    """Which rated questions are answered."""
    bootstrap: SeededBootstrap
    """The leaderboard's bootstrap."""
    anomaly: SeededAnomaly
    """The judge x player bias test."""
    min_judgments: int
    """Fewest valid judgements a ranked player's score rests on."""
    identity_leaks: Literal["flag", "scrub", "void"]
    """What happens to a question or answer that names a player, its model or its maker."""
    rationales: RationaleConfig | None
    """Which judgements were followed by a request for a rationale (null: none)."""
    self_assessment: bool
    """Whether players predicted their own scores."""
    tricks: TrickScoring
    """The trick questions."""
    diversity: DiversityConfig | None
    """The embedding and the diversity bonus (null: nothing embedded)."""
    pairwise: PairwiseConfig
    """How pairwise verdicts count in the Bradley-Terry ranking."""
    players: list[dict[str, Any]] = Field(default_factory=list)
    """Every player: name, provider, model, role and, for a mock player, its planted traits
    (read by tests, never by SQL)."""
