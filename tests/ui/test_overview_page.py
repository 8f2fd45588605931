"""The Overview page with Streamlit's AppTest on the session's runs: it is the first page, it
says the overview's sentences, its buttons open the pages they name, and a folder of runs
opens on the run list with each run's headline."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pdbench.model_text import escaped
from pdbench.overview import run_overview
from pdbench.ui.overview_page import button_label
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP


def _app(monkeypatch: pytest.MonkeyPatch, *argv: str) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", *argv])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _unescaped(markdown: str) -> str:
    return markdown.removeprefix("- ").replace("\\", "")


def test_the_overview_is_first_and_its_buttons_open_their_pages(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    findings = run_overview(pd_run).findings
    at = _app(monkeypatch, "--run-dir", str(pd_run))
    assert at.radio(key="pd_page").value == "Overview"
    shown = [_unescaped(m.value) for m in at.markdown if m.value.startswith("- ")]
    assert shown == [finding.text for finding in findings]
    assert [b.label for b in at.button] == [
        escaped(button_label(finding, focus_key="condition")) for finding in findings
    ]
    at.button[0].click().run()
    assert not at.exception
    assert at.radio(key="pd_page").value == findings[0].page


def test_each_button_opens_the_page_it_names_on_what_its_sentence_names(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    findings = run_overview(pd_run).findings
    assert len({(finding.page, finding.focus) for finding in findings}) > 1
    for index, finding in enumerate(findings):
        at = _app(monkeypatch, "--run-dir", str(pd_run))
        at.button[index].click().run()
        assert not at.exception, [e.message for e in at.exception]
        assert at.radio(key="pd_page").value == finding.page
        assert at.header[0].value != "Overview"
        if finding.focus is not None:
            assert finding.focus in finding.text
            assert at.selectbox(key="condition").value == finding.focus
            assert at.header[0].value.startswith(escaped(finding.focus))


def test_a_folder_of_runs_opens_on_its_run_list(
    pd_run: Path, arena_run: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = pd_run.parent
    at = _app(monkeypatch, "--run-dir", str(folder))
    assert "Runs" in [t.value for t in at.title]
    table = at.dataframe[0].value
    headlines = dict(zip(table["run"], table["headline"], strict=True))
    for run_dir in (pd_run, arena_run):
        assert headlines[run_dir.name] == run_overview(run_dir).headline
    at.selectbox(key="run").set_value(str(arena_run)).run()
    assert not at.exception
    assert at.radio(key="arena_page").value == "Overview"


def test_two_runs_of_one_run_id_are_told_apart_by_their_folders(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = tmp_path / "runs"
    for copy in ("copy-a", "copy-b"):
        shutil.copytree(pd_run, folder / copy)
    run_id = json.loads((pd_run / "run_manifest.json").read_text(encoding="utf-8"))["run_id"]

    at = _app(monkeypatch, "--run-dir", str(folder))

    names = sorted(at.dataframe[0].value["run"])
    assert names == [f"{run_id} (copy-a)", f"{run_id} (copy-b)"]
    assert at.caption[0].value.startswith("2 runs in ")
