"""Every page of the viewer opens without an exception on an imported PD run (the Akata
excerpt), a round robin, the arena demo and the Council import (pairwise verdicts only): the
app is walked page by page with Streamlit's AppTest, and on each page every option of every
select box, radio, multiselect, toggle and number input is chosen once."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from pdbench.ui.arena import pages as arena_pages
from pdbench.ui.pd import pages as pd_pages
from pdbench.ui.pd.round_inspector import move_line
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP

WIDGETS = ("selectbox", "radio", "multiselect", "toggle", "number_input")
"""The widget kinds the walk sets; a slider (a match's window of rounds) keeps its value."""


def _choices(widget: Any, kind: str) -> list[Any]:
    """The values the walk gives a widget: every option, both states, both ends."""
    if kind in ("selectbox", "radio"):
        return list(widget.options)
    if kind == "multiselect":
        return [[], list(widget.options)]
    if kind == "toggle":
        return [not widget.value, widget.value]
    return [widget.min, widget.max]


def _widgets(at: AppTest, skip: set[str]) -> list[tuple[str, str]]:
    return [
        (kind, widget.key)
        for kind in WIDGETS
        for widget in getattr(at, kind)
        if widget.key and widget.key not in skip
    ]


def _run(at: AppTest, where: str, failures: list[str]) -> None:
    at.run()
    failures += [f"{where}: {exception.message}" for exception in at.exception]


def walk(
    run_dir: Path, runs_root: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], list[str]]:
    """Open ``run_dir`` and choose every page, and on each page every value of each widget in
    turn (the others left as they are); the pages seen and every exception, with where."""
    monkeypatch.setattr(
        sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir), "--runs-root", str(runs_root)]
    )
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    failures: list[str] = []
    _run(at, "first page", failures)
    pages = [radio for radio in at.radio if radio.key is not None and radio.key.endswith("_page")]
    assert len(pages) == 1, f"{run_dir} shows no page: {[m.value for m in at.main]}"
    page_key = str(pages[0].key)
    options = list(pages[0].options)
    for page in options:
        at.radio(key=page_key).set_value(page)
        _run(at, page, failures)
        done = {"run", page_key}
        while todo := _widgets(at, done):
            kind, key = todo[0]
            done.add(key)
            for value in _choices(getattr(at, kind)(key=key), kind):
                getattr(at, kind)(key=key).set_value(value)
                _run(at, f"{page}, {key} = {value!r}", failures)
    return options, failures


@pytest.mark.parametrize(
    ("fixture", "pages"),
    [
        ("akata_run", pd_pages.PAGES),
        ("pd_round_robin_run", pd_pages.PAGES),
        ("arena_demo_run", arena_pages.PAGES),
        ("council_run", arena_pages.PAGES),
    ],
)
def test_every_page_opens_without_an_exception(
    fixture: str,
    pages: list[str],
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
):
    seen, failures = walk(request.getfixturevalue(fixture), tmp_path, monkeypatch)
    assert failures == []
    assert seen == pages


def _shown(at: AppTest) -> str:
    return "\n".join(str(element.value) for element in [*at.markdown, *at.info, *at.caption])


def test_the_round_inspector_of_an_imported_run_says_what_was_not_recorded(
    akata_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(
        sys, "argv", ["streamlit_app.py", "--run-dir", str(akata_run), "--runs-root", str(tmp_path)]
    )
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    at.radio(key="pd_page").set_value("Match")
    at.run()
    assert not at.exception
    condition = at.selectbox(key="condition").value
    first_round = next(
        record
        for record in map(json.loads, (akata_run / "rounds.jsonl").read_text().splitlines())
        if record["condition"] == condition and record["round_index"] == 1
    )
    # Akata et al. logged neither attempts nor validity: null in the records, not 0
    llm_sides = [s for s in ("a", "b") if first_round[f"agent_{s}_kind"] == "llm"]
    assert llm_sides and all(first_round[f"agent_{s}_attempts"] is None for s in llm_sides)
    shown = _shown(at)
    assert shown.count("attempts not recorded · reply validity not recorded") == len(llm_sides)
    assert shown.count("Prompts and replies: not recorded (this run was imported from csv") == len(
        llm_sides
    )
    assert re.search(r"after \d+ attempt", shown) is None
    assert "fallback played" not in shown


def _agent(attempts: object, is_valid: object) -> pd.Series:
    return pd.Series(
        {"agent": "A · gpt4", "action": "D", "attempts": attempts, "is_valid": is_valid}
    )


@pytest.mark.parametrize(
    ("attempts", "is_valid", "line"),
    [
        (1, True, "**A · gpt4** played **D** after 1 attempt · valid reply"),
        (3, False, "**A · gpt4** played **D** after 3 attempts · :red[invalid: fallback played]"),
        (
            pd.NA,
            pd.NA,
            "**A · gpt4** played **D** · attempts not recorded · reply validity not recorded",
        ),
        (
            None,
            float("nan"),
            "**A · gpt4** played **D** · attempts not recorded · reply validity not recorded",
        ),
        (2, pd.NA, "**A · gpt4** played **D** after 2 attempts · reply validity not recorded"),
    ],
)
def test_a_move_says_not_recorded_for_what_its_run_lacks(
    attempts: object, is_valid: object, line: str
):
    assert move_line(_agent(attempts, is_valid)) == line
