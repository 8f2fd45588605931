"""``pdbench power`` for a PD config: the replicates per condition that detect a paired
difference of a given size in one metric between the config's compared pairs, with the
analysis the run's ``comparisons.parquet`` makes, found by simulation
(:mod:`pdbench.power.simulate`), and what a run of that size costs.

- The pool: the config's own agents played (:func:`pdbench.pd.power_pool.played_pool`) or a
  pilot run (``--pilot``), measured by the project's SQL.
- The family: the metric's Benjamini-Hochberg family of the config, ``primary`` (its
  ``analysis.primary`` metrics x compared pairs) or ``exploratory`` (every other metric x
  compared pairs); each family test that has a p-value in the pool is simulated, with the
  differences its agents played.
- The effect: planted on the metric's centred paired differences of every compared pair
  (``d - mean(pool d) + effect``, first minus second); found when the BH-adjusted p is at most
  alpha and the mean difference positive.
- The cost: :func:`pdbench.pd.estimate.estimate_calls` on the plan of the run at N, the very
  lines ``pdbench run --dry-run`` prints.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from pdbench.column_labels import label
from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError, unknown
from pdbench.number_text import plural
from pdbench.pd.analysis import comparable_metrics
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.detectable import magnitude_text
from pdbench.pd.estimate import estimate_calls, total_rounds_line
from pdbench.pd.plan import plan_matches
from pdbench.pd.power_pool import Pool, played_pool, read_pool
from pdbench.power.simulate import (
    PairedTest,
    PowerPoint,
    PowerSearch,
    Study,
    normal_approximation,
)
from pdbench.power.text import DEFAULT_SIMULATIONS, PowerRequest, point_text, result_lines

__all__ = ["DEFAULT_METRIC", "DEFAULT_POOL", "check_request", "pd_power_lines", "pd_study"]

DEFAULT_METRIC = "cooperation_rate_a"
"""The metric without ``--metric``."""
DEFAULT_POOL = 2000
"""Replicates the config's agents play for the pool without ``--pool``."""


def check_request(loaded: LoadedConfig, request: PowerRequest) -> str:
    """The metric asked for, after the checks that need no play: a known metric, an effect
    above 0, power and alpha between 0 and 1, two compared conditions."""
    config: ExperimentConfig = loaded.config
    metric = request.metric or DEFAULT_METRIC
    known = comparable_metrics()
    if metric not in known:
        raise ConfigError(unknown("metric", metric, known), path=loaded.path, field="--metric")
    if not request.effect > 0:
        raise ConfigError(
            f"the effect must be above 0 (a difference of {metric} to detect, e.g. 0.1); "
            f"got {request.effect:g}",
            path=loaded.path,
            field="--effect",
        )
    for name, value in (("--power", request.power), ("--alpha", request.alpha)):
        if not 0 < value < 1:
            raise ConfigError(
                f"must be between 0 and 1, got {value:g}", path=loaded.path, field=name
            )
    if config.comparisons is None and len(config.conditions) < 2:
        raise ConfigError(
            f"no compared pair: the config has {plural(len(config.conditions), 'condition')}; "
            "power plans a paired difference between two conditions",
            path=loaded.path,
            field="conditions",
        )
    return metric


def pd_study(pool: Pool, *, config: ExperimentConfig, metric: str, request: PowerRequest) -> Study:
    """The family of ``metric`` in ``pool``, the effect planted on ``metric``."""
    primary = set(config.analysis.primary)
    in_family = (lambda m: m in primary) if metric in primary else (lambda m: m not in primary)
    tests = [
        PairedTest(
            name=f"{first} - {second}: {name}",
            differences=pool.differences(first, second, name),
            planted=name == metric,
        )
        for first, second, name in pool.tests
        if in_family(name)
    ]
    if not any(test.planted for test in tests):
        raise ConfigError(
            f"{metric} has no paired test in {pool.source} (undefined in every replicate)",
            field="--metric",
        )
    return Study(
        tests=tests,
        effect=request.effect,
        alpha=request.alpha,
        n_tests=pool.n_tests,
        bootstrap_n=config.metrics.bootstrap.n,
        simulations=request.simulations or DEFAULT_SIMULATIONS,
        seed=config.seed,
    )


def pd_power_lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    *,
    pilot: Path | None,
    on_line: Callable[[str], None],
) -> list[str]:
    """What ``pdbench power`` prints for a PD config (progress goes to ``on_line``)."""
    metric = check_request(loaded, request)
    if pilot is not None:
        return _lines(loaded, request, metric, read_pool(pilot), on_line)
    with played_pool(loaded, replicates=request.pool or DEFAULT_POOL, on_line=on_line) as pool:
        return _lines(loaded, request, metric, pool, on_line)


def _lines(
    loaded: LoadedConfig,
    request: PowerRequest,
    metric: str,
    pool: Pool,
    on_line: Callable[[str], None],
) -> list[str]:
    config: ExperimentConfig = loaded.config
    if not pool.tests:
        raise ConfigError(
            f"no compared pair in {pool.source}: without `comparisons`, more than 4 conditions "
            "are compared only where they share an agent on one side; name the pairs in "
            "`comparisons`",
            path=loaded.path,
            field="comparisons",
        )
    study = pd_study(pool, config=config, metric=metric, request=request)
    planted = [test for test in study.tests if test.planted]
    sd = float(np.nanstd(planted[0].differences, ddof=1))
    family = "primary" if metric in config.analysis.primary else "exploratory"
    approximation = normal_approximation(
        sd=sd, effect=request.effect, alpha=request.alpha, power=request.power
    )

    def progress(point: PowerPoint) -> None:
        on_line(f"simulated {point_text(point, unit='replicate')}")

    search = PowerSearch(study, on_point=progress)
    needed = search.smallest(request.power, start=approximation)
    pairs = "; ".join(f"{first} minus {second}" for first, second in pool.pairs)
    lines = [
        f"power to detect a paired difference of {magnitude_text(request.effect, metric)} in "
        f"{label(metric)} ({metric}; {pairs}), planted on the centred differences of every "
        "compared pair (by whole steps of the metric's grid, if it has one)",
        f"analysis: the paired sign-flip test, Benjamini-Hochberg within the {family} family "
        f"({plural(len(study.tests), 'test')}), found when BH p <= {request.alpha:g} in the "
        "planted direction",
        f"variation: {pool.source}; SD of the paired differences "
        f"{magnitude_text(sd, metric)} ({pairs.split(';')[0]})",
        *result_lines(
            search, request=request, needed=needed, unit="replicate", approximation=approximation
        ),
    ]
    if needed is not None:
        lines += cost_lines(loaded, replicates=needed)
    return lines


def cost_lines(loaded: LoadedConfig, *, replicates: int) -> list[str]:
    """What a run of ``replicates`` per condition would cost, as ``--dry-run`` counts it."""
    config: ExperimentConfig = loaded.config
    plans = plan_matches(config, replicates=replicates)
    return [
        f"cost of the run at {plural(replicates, 'replicate')} per condition (as pdbench run "
        f"--dry-run --replicates {replicates} counts it):",
        total_rounds_line(config, plans=plans),
        *estimate_calls(loaded, plans=plans).lines(),
    ]
