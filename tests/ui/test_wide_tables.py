"""Wide tables in the viewer show their chosen columns (keys and the metric catalogue's
headline metrics) with every column a click away, in an expander: AppTest on a run made by the
engine and dbt."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.ui.page_parts import chosen_columns
from pdbench.ui.pd.pages import CONDITION_TABLE

from tests.ui.conftest import open_page


def test_a_wide_table_shows_its_keys_and_headline_metrics_first():
    # the catalogue's headline metrics: cooperation, retaliation, forgiveness, payoff per round
    assert chosen_columns(CONDITION_TABLE, ("condition",)) == [
        "condition", "agent_a_name", "agent_b_name", "cooperation_rate", "cooperation_rate_a",
        "cooperation_rate_b", "retaliation_rate_a", "retaliation_rate_b", "forgiveness_rate_a",
        "forgiveness_rate_b", "payoff_per_round_a", "payoff_per_round_b",
    ]  # fmt: skip
    # no headline metric: the keys, then the first columns, 10 in all, in the table's order
    names = ["judge", *(f"c{i}" for i in range(1, 20)), "player"]
    assert chosen_columns(names) == ["judge", *(f"c{i}" for i in range(1, 9)), "player"]
    # a table of up to 15 columns is shown whole
    assert chosen_columns(names[:15]) == names[:15]


def test_the_condition_table_shows_its_chosen_columns_and_all_a_click_away(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    at = open_page(monkeypatch, pd_run, "pd_page", "All conditions")
    everything = [e for e in at.expander if e.label == f"All {len(CONDITION_TABLE)} columns"]
    assert len(everything) == 1
    assert list(everything[0].dataframe[0].value.columns) == CONDITION_TABLE
    chosen = chosen_columns(CONDITION_TABLE, ("condition",))
    assert any(list(frame.value.columns) == chosen for frame in at.dataframe)
