"""Ashlock fingerprints: each agent against the probe at every point of a grid.

``fingerprint: {agents: [...], step: 0.1}`` in an experiment becomes one condition per agent
and grid point, the agent on side A and :class:`~pdbench.pd.agents.probe.AshlockProbe` at
``(x, y)`` on side B, appended to ``conditions`` after the round robin's. The grid is
Axelrod's: ``x`` and ``y`` each run over ``0, step, 2 step, ..., 1``. The conditions play with
no execution noise (the probe's own draws are the perturbation) and follow the experiment's
horizon, replicates and seeds like any other. dbt reads the points back from the probes in
the manifest's config and builds ``fingerprints.parquet``: the agent's mean score per round
at every point.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator, model_validator

from pdbench.config.base import StrictModel
from pdbench.pd.agent_config import AgentConfig, PolicyAgentConfig, distinct_names
from pdbench.pd.agents.probe import PROBE
from pdbench.pd.condition import ConditionConfig
from pdbench.pd.round_robin import safe_name

__all__ = ["FingerprintConfig", "grid"]

MAX_POINTS_PER_AXIS = 101
"""Step 0.01, Axelrod's default, is the finest grid (10,201 points per agent)."""


def grid(step: float) -> list[float]:
    """``0, step, ..., 1``: the coordinates of one axis; ``1 / step`` must be a whole number."""
    intervals = round(1 / step)
    if intervals < 1 or abs(intervals * step - 1) > 1e-9:
        raise ValueError(f"step {step:g} does not divide 1 into whole intervals (try 0.1, 0.05)")
    return [i / intervals for i in range(intervals + 1)]


class FingerprintConfig(StrictModel):
    """Every agent of ``agents`` against Ashlock's tit-for-tat probe at every grid point."""

    agents: list[AgentConfig] = Field(min_length=1)
    """The agents to fingerprint: agents (a ref, or inline) or policy names (``TFT``,
    ``axelrod:Grudger``); each needs a distinct name."""
    step: float = Field(default=0.1, gt=0, le=1)
    """Distance between grid points on each axis (0.1: 11 x 11 = 121 points per agent)."""

    @field_validator("agents", mode="before")
    @classmethod
    def _shorthand(cls, agents: Any) -> Any:
        if not isinstance(agents, list):
            return agents
        return [{"type": "policy", "policy": a} if isinstance(a, str) else a for a in agents]

    @field_validator("step")
    @classmethod
    def _whole_intervals(cls, step: float) -> float:
        if len(grid(step)) > MAX_POINTS_PER_AXIS:
            raise ValueError(f"step {step:g} is finer than 0.01, the finest grid")
        return step

    @model_validator(mode="after")
    def _distinct(self) -> FingerprintConfig:
        distinct_names(self.agents)
        return self

    def conditions(self) -> list[ConditionConfig]:
        """The conditions, agent by agent, then x, then y: ``fp_<agent>_x<x>_y<y>``."""
        axis = grid(self.step)
        return [
            ConditionConfig(
                name=f"fp_{safe_name(agent.display_name)}_x{x:g}_y{y:g}",
                agent_a=agent,
                agent_b=PolicyAgentConfig(type="policy", policy=PROBE, point=(x, y)),
                noise=0.0,
            )
            for agent in self.agents
            for x in axis
            for y in axis
        ]
