"""The arena's pairwise settings: how verdicts on two answers are counted and ranked."""

from __future__ import annotations

from pydantic import Field

from pdbench.config.base import StrictModel

__all__ = ["PairwiseConfig"]


class PairwiseConfig(StrictModel):
    """How pairwise verdicts count in the Bradley-Terry ranking (``bradley_terry.parquet``)."""

    strong_weight: int = Field(default=3, ge=1, le=10)
    """Verdicts a strong preference (A>>B, B>>A) counts as; 3 as in Arena-Hard-Auto, 1 to
    count it as a plain win. A tie always counts half a win to each side."""
    baseline: str | None = None
    """The player anchored at 1000 on the Elo-style scale, against whom every win rate is
    given; null anchors the geometric mean of all strengths."""
