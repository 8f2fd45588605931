"""Helpers shared by the benchmark scripts (not a test module)."""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import yaml

__all__ = ["import_axelrod", "write_config"]


def import_axelrod():
    """``axelrod``, and how long importing it took (it builds every strategy at import)."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import axelrod
    return axelrod, time.perf_counter() - start


def write_config(folder: Path, **fields: object) -> Path:
    """An experiment file in ``folder`` from ``fields``."""
    path = folder / "experiment.yaml"
    path.write_text(yaml.safe_dump(fields, sort_keys=False), encoding="utf-8")
    return path
