"""The LLM agents of a PD config by field, and the inputs a PD run starts from."""

from __future__ import annotations

from typing import Any

from pdbench.config.loader import LoadedConfig
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.plan import SIDES
from pdbench.run.inputs import RunInputs, run_inputs

__all__ = ["llm_fields", "pd_run_inputs"]


def llm_fields(config: ExperimentConfig) -> list[tuple[str, Any]]:
    """``(config field, agent config)`` of every LLM agent, in config order."""
    return [
        (f"conditions[{i}].{side}", agent)
        for i, condition in enumerate(config.conditions)
        for side in SIDES
        if (agent := getattr(condition, side)).type == "llm"
    ]


def pd_run_inputs(loaded: LoadedConfig, config: ExperimentConfig) -> RunInputs:
    """The files and endpoints a run of ``config`` starts from (:mod:`pdbench.run.inputs`)."""
    return run_inputs(loaded.inputs, llm_fields(config))
