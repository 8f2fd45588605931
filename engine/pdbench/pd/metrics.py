"""The metrics a PD run is measured by: names and parameters only.

The arithmetic lives in the dbt models; the engine only records, in the run manifest, which
metrics were asked for and with which parameters, and dbt reads them from there.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_COLLAPSE_K",
    "DEFAULT_COLLAPSE_THRESHOLD",
    "PD_METRICS",
    "metric_params",
]

PD_METRICS: dict[str, str] = {
    "cooperation_rate": "fraction of rounds in which the agent played C (per agent and overall)",
    "cooperation_rate_over_time": "cooperation of both agents by round index",
    "retaliation_rate": "P(agent plays D at t | opponent played D at t-1)",
    "forgiveness_rate": "P(agent plays C at t | opponent played D at t-1)",
    "exploitability_payoff_gap": "opponent's total payoff minus the agent's (both directions)",
    "time_to_collapse": (
        "first round t such that cooperation of both agents over rounds t..t+k-1 is <= threshold"
    ),
    "invalid_rate": "fraction of an LLM agent's rounds whose reply stayed invalid",
}
"""Metric name -> one-line definition (the SQL models implement them)."""

DEFAULT_COLLAPSE_K = 10
DEFAULT_COLLAPSE_THRESHOLD = 0.2


def metric_params(*, metrics: list[str], collapse_k: int, collapse_threshold: float) -> dict:
    """The ``metric_params`` block of the run manifest, as dbt reads it."""
    unknown = [m for m in metrics if m not in PD_METRICS]
    if unknown:
        raise ValueError(f"unknown metrics: {', '.join(unknown)}")
    return {
        "collapse_k": collapse_k,
        "collapse_threshold": collapse_threshold,
        "metrics": list(metrics),
    }
