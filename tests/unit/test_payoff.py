from pathlib import Path

import pytest
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.actions import C, D
from pdbench.pd.payoff import PayoffMatrix, PayoffView

from tests.conftest import edit

CLASSIC = PayoffMatrix(cc=(3, 3), cd=(0, 5), dc=(5, 0), dd=(1, 1))
# asymmetric on purpose: every cell of both sides is distinct
LOPSIDED = PayoffMatrix(cc=(3, 2), cd=(0, 6), dc=(5, -1), dd=(1, 0.5))


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [(C, C, (3, 3)), (C, D, (0, 5)), (D, C, (5, 0)), (D, D, (1, 1))],
)
def test_classic_scores(a, b, expected):
    assert CLASSIC.score(a, b) == expected
    assert CLASSIC.table()[a, b] == expected


def test_views_read_each_side_of_an_asymmetric_matrix():
    # A: R = CC[0], S = CD[0], T = DC[0], P = DD[0]
    assert LOPSIDED.view("agent_a") == PayoffView(R=3, S=0, T=5, P=1)
    # B: R = CC[1], S = B cooperates while A defects = DC[1], T = CD[1], P = DD[1]
    assert LOPSIDED.view("agent_b") == PayoffView(R=2, S=-1, T=6, P=0.5)
    assert LOPSIDED.view("agent_b").payoff(D, C) == 6


def test_the_classic_table_is_a_prisoners_dilemma():
    assert CLASSIC.pd_violations() == []


def test_a_table_where_alternating_beats_cooperating_is_not_a_pd():
    # T > R > P > S holds, but 2R = 6 < T + S = 7
    matrix = PayoffMatrix(cc=(3, 3), cd=(0, 7), dc=(7, 0), dd=(1, 1))
    problems = matrix.pd_violations()
    assert len(problems) == 2
    assert all("2R > T + S" in p for p in problems)


def test_a_stag_hunt_breaks_the_ordering():
    matrix = PayoffMatrix(cc=(5, 5), cd=(0, 3), dc=(3, 0), dd=(1, 1))
    assert any("T > R > P > S" in p for p in matrix.pd_violations())


def test_non_pd_payoffs_in_a_config_warn_but_load(project: Path):
    edit(project / "configs/experiment.yaml", "CC: [3, 3]", "CC: [6, 6]")
    loaded = load_config("configs/experiment.yaml")
    assert loaded.config.payoffs.CC == (6, 6)
    assert len(loaded.warnings) == 1
    warning = loaded.warnings[0]
    assert warning.startswith("configs/experiment.yaml: payoffs: not a prisoner's dilemma")


def test_pd_payoffs_load_without_warning(project: Path):
    assert load_config("configs/experiment.yaml").warnings == []


@pytest.mark.parametrize("cell", ["[3, x]", "[3, true]", "[3]", "[3, .nan]"])
def test_non_numeric_payoffs_are_errors(project: Path, cell: str):
    edit(project / "configs/experiment.yaml", "CC: [3, 3]", f"CC: {cell}")
    with pytest.raises(ConfigError, match=r"^configs/experiment\.yaml: payoffs\.CC"):
        load_config("configs/experiment.yaml")
