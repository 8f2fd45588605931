"""The Overview page, first for every run and series: what the run found, answer first, in the
sentences of :mod:`pdbench.overview` (the same the terminal summaries and ``pdbench report``
say), each with a button to the page that holds its detail, then one chart that answers the
run's question (drawn by the run's game); and, for a folder of runs, the
run list with each run's headline."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from pdbench.findings import Finding
from pdbench.model_text import escaped
from pdbench.number_text import plural
from pdbench.overview import folder_overview, run_overview

__all__ = ["button_label", "findings_list", "page", "run_list"]


def _open(page_key: str, page: str, focus: tuple[str, str] | None) -> None:
    """Switch the sidebar's page radio to ``page`` and, with ``focus`` (a sidebar widget's
    key and value), the page to what the sentence names (a button's callback, before the
    rerun)."""
    st.session_state[page_key] = page
    if focus is not None:
        st.session_state[focus[0]] = focus[1]


def button_label(finding: Finding, *, focus_key: str | None) -> str:
    """What a finding's button says: the page it opens, and what it opens on."""
    if focus_key is None or finding.focus is None:
        return f"{finding.page} →"
    return f"{finding.page}: {finding.focus} →"


def findings_list(
    findings: tuple[Finding, ...], *, page_key: str | None, focus_key: str | None = None
) -> None:
    """Each finding as a line, and a button to its page when the sidebar has pages; the
    button of a finding with a ``focus`` also sets the sidebar widget ``focus_key`` (the PD's
    condition) to it, so that the page opens on what the sentence names."""
    if not findings:
        st.info("No finding yet: the marts hold no rows.")
        return
    for index, finding in enumerate(findings):
        text, button = st.columns([5, 2], vertical_alignment="center")
        text.markdown(f"- {escaped(finding.text)}")
        if page_key is not None:
            focus = None
            if focus_key is not None and finding.focus is not None:
                focus = (focus_key, finding.focus)
            button.button(
                escaped(button_label(finding, focus_key=focus_key)),
                width="stretch",
                key=f"overview_{index}",
                on_click=_open,
                args=(page_key, finding.page, focus),
                help=f"Open the {finding.page} page, where the numbers behind this come from.",
            )


def _share_hint(run_dir: Path) -> None:
    where = shlex.quote(str(run_dir))
    st.caption(
        "The same sentences end `pdbench aggregate`; one self-contained HTML file of them and "
        "the key charts, to attach or archive:"
    )
    st.code(f"uv run pdbench report {where}", language="bash")


def page(
    run_dir: Path,
    *,
    page_key: str | None,
    focus_key: str | None = None,
    chart: Callable[[], None] | None = None,
) -> None:
    """The Overview of the run or series in ``run_dir``: its sentences, then ``chart`` (the
    game's one chart answering the run's question, with its caption and text alternative);
    ``page_key``: the sidebar radio the buttons switch (None: no buttons); ``focus_key``: the
    sidebar widget a finding's ``focus`` sets."""
    st.header("Overview")
    findings_list(run_overview(run_dir).findings, page_key=page_key, focus_key=focus_key)
    if chart is not None:
        chart()
    _share_hint(run_dir)


def run_list(folder: Path) -> None:
    """The runs directly under ``folder``, newest first, each with its headline."""
    st.title("Runs")
    listing = folder_overview(folder)
    runs = plural(len(listing), "run")
    st.caption(f"{runs} in {escaped(folder)}, newest first; pick one in the sidebar.")
    table = pd.DataFrame(
        {
            "run": [run.name or run.run_id for run in listing],
            "game": [run.game for run in listing],
            "status": [run.status for run in listing],
            "headline": [run.headline for run in listing],
        }
    )
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        column_config={"headline": st.column_config.TextColumn("headline", width="large")},
    )
