"""The All conditions chart draws interval whiskers only where an interval exists: with none at
all it has no whisker layer, which Vega would otherwise warn about (an infinite extent)."""

from __future__ import annotations

import math

import pandas as pd
from pdbench.ui.pd.charts import condition_bars


def _bars(low: float, high: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "condition": ["tft_vs_alld", "tft_vs_alld"],
            "side": ["agent_a", "agent_b"],
            "agent": ["A · TFT", "B · ALLD"],
            "value": [0.05, 0.0],
            "ci_low": [low, math.nan],
            "ci_high": [high, math.nan],
        }
    )


def test_bars_with_an_interval_get_a_whisker_layer() -> None:
    chart = condition_bars(_bars(0.0, 0.12), title="cooperation", percent=True).to_dict()
    marks = [layer["mark"]["type"] for layer in chart["layer"]]
    assert marks == ["bar", "errorbar"]


def test_bars_without_any_interval_have_no_whisker_layer() -> None:
    chart = condition_bars(_bars(math.nan, math.nan), title="cooperation", percent=True)
    marks = [layer["mark"]["type"] for layer in chart.to_dict()["layer"]]
    assert marks == ["bar"]
