"""One way to write a share and a p-value: in the viewer's tiles and tables, the terminal's
summaries and ``compare``, and the report's sentences."""

from __future__ import annotations

import pandas as pd
import pytest
from pdbench.column_labels import format_cell
from pdbench.number_text import p_value_text, share_text
from pdbench.pd.compare import mean_text
from pdbench.pd.summary import _p_text
from pdbench.ui.arena.charts import bias_heatmap
from pdbench.ui.formats import format_value


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.125, "12.5%"),
        (0.0, "0.0%"),
        (1.0, "100.0%"),
        # floating-point residue under a bound is 0, never -0.0%
        (-4.6e-17, "0.0%"),
        (-0.0, "0.0%"),
        (1 + 2e-16, "100.0%"),
        # a share that is not 0 but would read 0.0%: one significant digit, 0.0384% -> 0.04%
        (0.000384, "0.04%"),
        (0.00001, "0.001%"),
        (4e-7, "< 0.0001%"),
        # the same beside 1: 1 - 0.99962 = 0.038% -> 99.96%
        (0.99962, "99.96%"),
        (0.9995, "99.95%"),
        (0.9994, "99.9%"),
        (0.0005, "0.1%"),
        (0.991, "99.1%"),
    ],
)
def test_a_share_never_reads_as_a_value_it_is_not(share: float, text: str):
    assert share_text(share) == text
    # the viewer's tiles, its tables and the terminal write it alike
    assert format_value(share, "rate") == text
    assert format_cell("cooperation_rate", share) == text
    assert format_cell("flip_rate_ci_low", share) == text
    assert mean_text(share, "cooperation_rate") == text


def test_a_stored_interval_of_0_to_0_000384_reads_as_two_different_ends():
    assert (
        f"{format_cell('flip_rate_ci_low', 0.0)} to {format_cell('flip_rate_ci_high', 0.000384)}"
        == ("0.0% to 0.04%")
    )


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0771, "0.077"),
        (1.0, "1.000"),
        (0.001, "0.001"),
        (0.000999, "< 0.001"),
        (2.2e-308, "< 0.001"),
    ],
)
def test_a_p_value_reads_the_same_everywhere(p: float, text: str):
    assert p_value_text(p) == text
    assert _p_text(p) == text
    # the PD's sign-flip p and its BH-adjusted p, and the arena's q-values
    for column in ("p_value", "p_value_bh", "q_value", "reverse_q_value"):
        assert format_cell(column, p) == text, column


def test_the_bias_heat_map_tooltips_write_p_and_q_as_the_tables_do():
    bias = pd.DataFrame({
        "judge": ["j", "k"], "player": ["p", "p"], "flag_kind": [None, None],
        "relative_deviation": [0.5, -0.25], "mean_deviation": [0.5, -0.25],
        "p_value": [0.00004, 0.5], "q_value": [0.0771, None], "n_answers": [4, 4],
        "is_flagged": [False, False],
    })  # fmt: skip
    rows = bias_heatmap(bias).to_dict()["datasets"]
    (values,) = rows.values()
    assert [(row["p_text"], row["q_text"]) for row in values] == [
        ("< 0.001", "0.077"),
        ("0.500", "—"),
    ]
