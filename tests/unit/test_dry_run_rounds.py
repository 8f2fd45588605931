"""The total rounds ``pdbench run --dry-run`` prints, and the counts it writes with them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.games import load_config
from pdbench.number_text import plural
from pdbench.pd.config import FixedHorizonConfig, GeometricHorizonConfig
from pdbench.pd.estimate import total_rounds_line
from pdbench.pd.plan import plan_matches

EXPERIMENT = Path(__file__).resolve().parents[2] / "configs" / "experiment.yaml"


@pytest.mark.parametrize(
    ("stop_prob", "max_rounds", "expected"),
    [(0.5, 3, 1 + 0.5 + 0.25), (1.0, 50, 1.0), (0.1, 1, 1.0), (0.25, 2, 1.75)],
)
def test_the_mean_length_of_a_capped_geometric_horizon(stop_prob, max_rounds, expected):
    horizon = GeometricHorizonConfig(type="geometric", stop_prob=stop_prob, max_rounds=max_rounds)
    assert horizon.expected_rounds() == pytest.approx(expected)


def test_a_fixed_horizon_gives_the_exact_total_in_singular_and_plural():
    loaded = load_config(EXPERIMENT)
    one = loaded.config.model_copy(
        update={"horizon": FixedHorizonConfig(type="fixed", n=1), "replicates": 1}
    )
    assert total_rounds_line(one, plans=plan_matches(one)) == (
        "total rounds: 7 (7 matches x 1 round)"
    )
    twenty = one.model_copy(
        update={"horizon": FixedHorizonConfig(type="fixed", n=20), "replicates": 3}
    )
    assert total_rounds_line(twenty, plans=plan_matches(twenty)) == (
        "total rounds: 420 (21 matches x 20 rounds)"
    )


@pytest.mark.parametrize(
    ("count", "words", "text"),
    [
        (1, ("replicate",), "1 replicate"),
        (0, ("replicate",), "0 replicates"),
        (2, ("match", "matches"), "2 matches"),
        (1, ("match", "matches"), "1 match"),
        (1.0, ("round",), "1 round"),
        ("?", ("round",), "? rounds"),
    ],
)
def test_a_count_and_its_noun_agree(count, words, text):
    assert plural(count, *words) == text


def test_a_grouped_count_has_thousands_separators():
    assert plural(871836, "round", grouped=True) == "871,836 rounds"
