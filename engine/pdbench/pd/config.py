"""The PD experiment file (``configs/experiment.yaml``): payoffs, horizon, metrics,
conditions (or a round robin) and replicates.

Payoff tables that are not a Prisoner's Dilemma are allowed, with a warning.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from pdbench.config.base import (
    MAX_MATCHES,
    MAX_PAYOFF,
    MAX_ROUNDS_PER_MATCH,
    RunId,
    Seed,
    StrictModel,
    tagged_union,
)
from pdbench.config.providers import ProviderLayerConfig
from pdbench.errors import unknown
from pdbench.number_text import plural
from pdbench.pd.agent_config import AgentConfig, distinct_names
from pdbench.pd.analysis import AnalysisConfig
from pdbench.pd.condition import ConditionConfig
from pdbench.pd.fingerprint import FingerprintConfig
from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.round_robin import pairing_name, pairings
from pdbench.rng import derive_seed

# ---------------------------------------------------------------------------------------------
# the game: payoffs, horizon, metrics

Number = Annotated[float, Field(strict=True, allow_inf_nan=False, ge=-MAX_PAYOFF, le=MAX_PAYOFF)]


class PayoffsConfig(StrictModel):
    """The payoff matrix: ``[payoff of A, payoff of B]`` for each pair of actions."""

    CC: tuple[Number, Number] = (3, 3)
    """Both cooperate."""
    CD: tuple[Number, Number] = (0, 5)
    """A cooperates, B defects."""
    DC: tuple[Number, Number] = (5, 0)
    """A defects, B cooperates."""
    DD: tuple[Number, Number] = (1, 1)
    """Both defect."""

    @model_validator(mode="before")
    @classmethod
    def _all_four_cells(cls, data: object) -> object:
        if isinstance(data, dict) and data:
            missing = [cell for cell in ("CC", "CD", "DC", "DD") if cell not in data]
            if missing:
                raise ValueError(
                    f"missing payoff cell {', '.join(missing)}: give all four (CC, CD, DC, DD) "
                    "or none for the classic 3/0/5/1"
                )
        return data

    @model_validator(mode="after")
    def _warn_when_not_a_pd(self, info: ValidationInfo) -> PayoffsConfig:
        problems = self.to_matrix().pd_violations()
        if problems and info.context is not None:
            info.context["warnings"].append(
                ("payoffs", "not a prisoner's dilemma: " + "; ".join(problems))
            )
        return self

    def to_matrix(self) -> PayoffMatrix:
        """The core payoff matrix (floats, as ``rounds.jsonl`` records payoffs)."""
        return PayoffMatrix(
            cc=_floats(self.CC), cd=_floats(self.CD), dc=_floats(self.DC), dd=_floats(self.DD)
        )


def _floats(pair: tuple[float, float]) -> tuple[float, float]:
    return float(pair[0]), float(pair[1])


class FixedHorizonConfig(StrictModel):
    """Every match lasts exactly ``n`` rounds."""

    type: Literal["fixed"]
    """``fixed``."""
    n: int = Field(ge=1, le=MAX_ROUNDS_PER_MATCH)
    """Rounds per match."""

    def describe(self) -> str:
        """One line for summaries."""
        return f"fixed, {plural(self.n, 'round')}"

    def expected_rounds(self) -> float:
        """The mean length of a match: ``n``."""
        return float(self.n)


class GeometricHorizonConfig(StrictModel):
    """After each round the match stops with probability ``stop_prob``."""

    type: Literal["geometric"]
    """``geometric``."""
    stop_prob: float = Field(gt=0, le=1)
    """Probability of stopping after each round, in (0, 1]; mean length 1 / stop_prob."""
    max_rounds: int = Field(default=1000, ge=1, le=MAX_ROUNDS_PER_MATCH)
    """Cap on the length of a match."""

    def describe(self) -> str:
        """One line for summaries."""
        return (
            f"geometric, stop_prob {self.stop_prob:g}, at most {plural(self.max_rounds, 'round')}"
        )

    def expected_rounds(self) -> float:
        """The mean length of a match under the cap: a match outlasts round ``k`` (``k`` below
        ``max_rounds``) with probability ``(1 - stop_prob) ** k``, so the mean of
        ``min(length, max_rounds)`` is the sum of those, ``(1 - (1 - p) ** max_rounds) / p``."""
        p = self.stop_prob
        return (1 - (1 - p) ** self.max_rounds) / p


if TYPE_CHECKING:
    type HorizonConfig = FixedHorizonConfig | GeometricHorizonConfig
else:
    HorizonConfig = tagged_union(FixedHorizonConfig, GeometricHorizonConfig)


class CollapseConfig(StrictModel):
    """Parameters of ``time_to_collapse``."""

    k: int = Field(default=10, ge=1)
    """Length of the window of rounds that must have low cooperation."""
    threshold: float = Field(default=0.2, ge=0, le=1)
    """Cooperation rate of both agents at or below which the window counts as collapsed."""


class BootstrapConfig(StrictModel):
    """The random sign flips of the paired tests (docs/metrics.md)."""

    n: int = Field(default=1000, ge=10, le=100_000)
    """The fewest random sign flips of a paired test of 13 to 200 replicates (more when the
    run makes many tests)."""


class EvolutionConfig(StrictModel):
    """Evolutionary dynamics of the round robin's payoff matrix (docs/evolution.md)."""

    generations: int = Field(default=100, ge=0, le=10_000)
    """Generations of the discrete replicator dynamics, from equal shares."""
    population: int = Field(default=10, ge=2, le=10_000)
    """Population size of the Moran process behind the fixation probabilities."""
    repetitions: int = Field(default=1000, ge=0, le=100_000)
    """Seeded runs of the Moran process per pair of agents, beside the exact probabilities."""


class MetricsConfig(StrictModel):
    """Parameters of the metrics. Every metric (docs/metrics.md) is computed for every run:
    they come from one pass over the rounds, and marts of one shape compare across runs."""

    collapse: CollapseConfig = Field(default_factory=CollapseConfig)
    """Parameters of ``time_to_collapse``."""
    bootstrap: BootstrapConfig = Field(default_factory=BootstrapConfig)
    """Resamples of the intervals and tests; their seed is derived from the run's seed."""
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)
    """The replicator dynamics' generations and the Moran process's population size."""

    @model_validator(mode="before")
    @classmethod
    def _no_metric_names(cls, data: object) -> object:
        if isinstance(data, dict) and "names" in data:
            raise ValueError(
                "'names' is no longer read: every metric is computed and the marts carry "
                "them all (docs/metrics.md); delete the key"
            )
        return data


# ---------------------------------------------------------------------------------------------
# agents


def _agent_entry(entry: Any) -> Any:
    """A round-robin entry: an agent mapping, or a policy name as shorthand."""
    if isinstance(entry, str):
        return {"type": "policy", "policy": entry}
    return entry


class RoundRobinConfig(StrictModel):
    """Every pairing of ``agents`` as a condition named ``<a>_vs_<b>`` (list order)."""

    agents: list[AgentConfig] = Field(min_length=1)
    """The players: agents (a ref, or inline) or policy names (``TFT``, ``axelrod:Grudger``);
    each needs a distinct name (set ``name`` when two would share one)."""
    self_play: bool = False
    """Also pair every agent with itself (two instances, each with its own seeds)."""
    noise: float | None = Field(default=None, ge=0, le=1)
    """Noise of every pairing (None: the experiment's ``noise``)."""

    @field_validator("agents", mode="before")
    @classmethod
    def _shorthand(cls, agents: Any) -> Any:
        return [_agent_entry(a) for a in agents] if isinstance(agents, list) else agents

    @model_validator(mode="after")
    def _enough_and_distinct(self) -> RoundRobinConfig:
        if len(distinct_names(self.agents)) < 2 and not self.self_play:
            raise ValueError("a round robin needs two agents, or self_play: true")
        return self

    def conditions(self) -> list[ConditionConfig]:
        """The pairings as conditions, in order: (0, 1), (0, 2), ..., then (1, 2), ..."""
        names = [agent.display_name for agent in self.agents]
        return [
            ConditionConfig(
                name=pairing_name(names[i], names[j]),
                agent_a=self.agents[i],
                agent_b=self.agents[j],
                noise=self.noise,
            )
            for i, j in pairings(len(self.agents), self_play=self.self_play)
        ]


class ExperimentConfig(ProviderLayerConfig):
    """An iterated PD experiment (``configs/experiment.yaml``)."""

    game: Literal["pd"] = "pd"
    """The game: ``pd``."""
    run_id: RunId
    """Name of the run; the run directory defaults to ``data/runs/<run_id>``."""
    seed: Seed
    """The one seed every random stream is derived from."""
    output_dir: str | None = None
    """Run directory, relative to the working directory (default ``data/runs/<run_id>``)."""
    replicates: int = Field(default=1, ge=1, le=MAX_MATCHES)
    """Matches per condition, each with its own seeds (``--replicates`` overrides)."""
    max_matches: int = Field(default=MAX_MATCHES, ge=1)
    """The most matches (conditions x replicates) a run may plan; a guard against a typo
    that would plan billions. Raise it to play more."""
    store_prompts: bool = False
    """Write every LLM prompt and raw reply into ``rounds.jsonl``."""
    payoffs: PayoffsConfig = Field(default_factory=PayoffsConfig)
    """The payoff matrix."""
    horizon: HorizonConfig
    """How long matches last: ``fixed`` or ``geometric``."""
    metrics: MetricsConfig = Field(default_factory=MetricsConfig)
    """Metrics dbt computes, and their parameters."""
    noise: float = Field(default=0.0, ge=0, le=1)
    """Probability of flipping each intended action (execution noise); conditions override."""
    conditions: list[ConditionConfig] = Field(default_factory=list)
    """The matchups written by hand; after validation, followed by the round robin's."""
    round_robin: RoundRobinConfig | None = None
    """Agents to pair with each other; every pairing is appended to ``conditions``."""
    fingerprint: FingerprintConfig | None = None
    """Agents to fingerprint against Ashlock's probe (:mod:`pdbench.pd.fingerprint`); every
    agent and grid point is a condition appended to ``conditions``, after the round robin's."""
    actions: dict[Literal["C", "D"], str] | None = None
    """Neutral labels of the actions in the LLM agents' prompts and replies, e.g. ``{C: J,
    D: F}`` (None: ``C`` and ``D``, named cooperate and defect). The records still say C/D."""
    comparisons: list[tuple[str, str]] | None = Field(default=None, min_length=1)
    """Pairs of conditions ``comparisons.parquet`` compares, first minus second (None: every
    pair when at most 4 conditions, else the pairs that share an agent on the same side;
    conditions with a fingerprint probe never)."""
    analysis: AnalysisConfig = Field(default_factory=AnalysisConfig)
    """The primary family of the comparisons' Benjamini-Hochberg correction."""

    @field_validator("actions")
    @classmethod
    def _two_distinct_labels(cls, actions: dict[str, str] | None) -> dict[str, str] | None:
        if actions is None:
            return None
        if set(actions) != {"C", "D"}:
            raise ValueError("give a label for both actions: {C: J, D: F}")
        for label in actions.values():
            if not label or any(ch.isspace() or ch in ",;:" for ch in label):
                raise ValueError(
                    f"label {label!r}: one word without spaces, commas, colons or semicolons"
                )
        if actions["C"].casefold() == actions["D"].casefold():
            raise ValueError("the two actions need different labels")
        return actions

    @field_validator("conditions")
    @classmethod
    def _unique_names(cls, conditions: list[ConditionConfig]) -> list[ConditionConfig]:
        seen: set[str] = set()
        for condition in conditions:
            if condition.name in seen:
                raise ValueError(f"condition name {condition.name!r} is used twice")
            seen.add(condition.name)
        return conditions

    @model_validator(mode="after")
    def _expand_generated(self) -> ExperimentConfig:
        expanded = list(self.conditions)
        by_name = {c.name: c for c in expanded}
        for source, condition in self._generated():
            same = by_name.get(condition.name)
            if same == condition:
                continue  # a snapshot that already holds the expansion
            if same is not None:
                raise ValueError(
                    f"condition name {condition.name!r} is used twice (a condition and a "
                    f"{source} condition)"
                )
            expanded.append(condition)
            by_name[condition.name] = condition
        if not expanded:
            raise ValueError("no conditions: give 'conditions', 'round_robin' or 'fingerprint'")
        # the model is frozen; the expansion is part of validation, as a default would be
        object.__setattr__(self, "conditions", expanded)
        return self

    @model_validator(mode="after")
    def _compared_conditions_exist(self) -> ExperimentConfig:
        names = [c.name for c in self.conditions]
        seen: set[frozenset[str]] = set()
        for first, second in self.comparisons or []:
            for name in (first, second):
                if name not in names:
                    raise ValueError("comparisons: " + unknown("condition", name, names))
            if first == second:
                raise ValueError(f"comparisons: {first!r} is compared with itself")
            if frozenset((first, second)) in seen:
                raise ValueError(f"comparisons: the pair {first!r}, {second!r} is named twice")
            seen.add(frozenset((first, second)))
        return self

    def _generated(self) -> list[tuple[str, ConditionConfig]]:
        generated = []
        if self.round_robin is not None:
            generated += [("round_robin", c) for c in self.round_robin.conditions()]
        if self.fingerprint is not None:
            generated += [("fingerprint", c) for c in self.fingerprint.conditions()]
        return generated

    @property
    def round_robin_conditions(self) -> list[str]:
        """Names of the conditions the round robin added."""
        if self.round_robin is None:
            return []
        return [c.name for c in self.round_robin.conditions()]

    def run_dir(self, override: str | Path | None = None) -> Path:
        """Where this run writes: ``override``, else ``output_dir``, else data/runs/<run_id>."""
        if override is not None:
            return Path(override)
        return Path(self.output_dir) if self.output_dir else Path("data/runs") / self.run_id

    def action_labels(self) -> ActionLabels:
        """The labels of ``actions`` (``C``/``D`` when none are given)."""
        if self.actions is None:
            return DEFAULT_LABELS
        return ActionLabels(C=self.actions["C"], D=self.actions["D"])

    def metric_params(self) -> dict[str, int | float]:
        """The manifest's ``metric_params``: collapse, bootstrap and evolution parameters, the
        bootstrap's seed derived from the run's seed by name."""
        return metric_params(self.metrics, seed=self.seed)


class MetricParams(BaseModel):
    """The manifest's ``metric_params``: what the PD's SQL reads (``stg_pd_run_manifest``)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    collapse_k: int
    """Rounds in the window of the cooperation-collapse test."""
    collapse_threshold: float
    """Cooperation rate at or below which a window has collapsed."""
    bootstrap_n: int
    """Bootstrap replicates behind the intervals."""
    bootstrap_seed: int
    """The bootstrap's seed, derived from the run's seed by name."""
    ecosystem_generations: int
    """Generations of the ecological simulation."""
    moran_population: int
    """Population of the Moran process."""
    moran_repetitions: int
    """Repetitions of the Moran process."""


def metric_params(metrics: MetricsConfig, *, seed: int) -> dict[str, int | float]:
    """The manifest's ``metric_params`` (:class:`MetricParams`) of ``metrics`` in a run of
    ``seed`` (played or imported)."""
    collapse = metrics.collapse
    evolution = metrics.evolution
    return MetricParams(
        collapse_k=collapse.k,
        collapse_threshold=collapse.threshold,
        bootstrap_n=metrics.bootstrap.n,
        bootstrap_seed=derive_seed(seed, "bootstrap"),
        ecosystem_generations=evolution.generations,
        moran_population=evolution.population,
        moran_repetitions=evolution.repetitions,
    ).model_dump(mode="json")
