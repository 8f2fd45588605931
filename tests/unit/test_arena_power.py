"""The arena planner's pool (:mod:`pdbench.arena.power`): every pair of players' per-question
score differences, centred on the pair's mean, on scores written here by hand."""

from __future__ import annotations

import numpy as np
import pytest
from pdbench.arena.power import centred_pair_differences


def test_each_pair_is_centred_over_its_common_questions() -> None:
    # atlas - boreas over q1, q2, q3: 2, 0, 1 (mean 1) -> 1, -1, 0; atlas - ember over q1, q2:
    # 4, 2 (mean 3) -> 1, -1; boreas - ember over q1, q2: 2, 2 (mean 2) -> 0, 0; common
    # questions per pair (3 + 2 + 2) / 3
    scores = {
        "atlas": {"q1": 7.0, "q2": 5.0, "q3": 6.0},
        "boreas": {"q1": 5.0, "q2": 5.0, "q3": 5.0},
        "ember": {"q1": 3.0, "q2": 3.0},
    }
    found = centred_pair_differences(scores)
    assert found is not None
    differences, common = found
    assert differences == pytest.approx([1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0])
    assert common == pytest.approx(7 / 3)
    assert float(np.mean(differences)) == pytest.approx(0.0)


def test_no_pair_with_two_common_questions() -> None:
    assert centred_pair_differences({"atlas": {"q1": 7.0}, "boreas": {"q1": 5.0}}) is None
