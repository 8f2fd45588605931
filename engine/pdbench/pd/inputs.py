"""The LLM agents of a PD config by field, and what a PD run hands the run frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.plan import SIDES
from pdbench.run.frame import RunSpec

__all__ = ["llm_fields", "pd_run_spec"]


def llm_fields(config: ExperimentConfig) -> list[tuple[str, Any]]:
    """``(config field, agent config)`` of every LLM agent, in config order."""
    return [
        (f"conditions[{i}].{side}", agent)
        for i, condition in enumerate(config.conditions)
        for side in SIDES
        if (agent := getattr(condition, side)).type == "llm"
    ]


def pd_run_spec(loaded: LoadedConfig, config: ExperimentConfig, run_dir: Path) -> RunSpec:
    """What the run frame (:mod:`pdbench.run.frame`) starts or resumes a PD run of
    ``config`` into ``run_dir`` from: its files and endpoints, its metric parameters."""
    llms, params = llm_fields(config), config.metric_params()
    return RunSpec.of("pd", loaded, config, run_dir=run_dir, llms=llms, metric_params=params)
