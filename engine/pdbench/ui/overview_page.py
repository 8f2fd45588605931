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
from pdbench.overview import folder_overview, run_overview

__all__ = ["findings_list", "page", "run_list"]


def _open(page_key: str, page: str) -> None:
    """Switch the sidebar's page radio to ``page`` (a button's callback, before the rerun)."""
    st.session_state[page_key] = page


def findings_list(findings: tuple[Finding, ...], *, page_key: str | None) -> None:
    """Each finding as a line, and a button to its page when the sidebar has pages."""
    if not findings:
        st.info("No finding yet: the marts hold no rows.")
        return
    for index, finding in enumerate(findings):
        text, button = st.columns([5, 2], vertical_alignment="center")
        text.markdown(f"- {escaped(finding.text)}")
        if page_key is not None:
            button.button(
                f"{finding.page} →",
                width="stretch",
                key=f"overview_{index}",
                on_click=_open,
                args=(page_key, finding.page),
                help=f"Open the {finding.page} page, where the numbers behind this come from.",
            )


def _share_hint(run_dir: Path) -> None:
    where = shlex.quote(str(run_dir))
    st.caption(
        "The same sentences end `pdbench aggregate`; one self-contained HTML file of them and "
        "the key charts, to attach or archive:"
    )
    st.code(f"uv run pdbench report {where}", language="bash")


def page(run_dir: Path, *, page_key: str | None, chart: Callable[[], None] | None = None) -> None:
    """The Overview of the run or series in ``run_dir``: its sentences, then ``chart`` (the
    game's one chart answering the run's question, with its caption and text alternative);
    ``page_key``: the sidebar radio the buttons switch (None: no buttons)."""
    st.header("Overview")
    findings_list(run_overview(run_dir).findings, page_key=page_key)
    if chart is not None:
        chart()
    _share_hint(run_dir)


def run_list(folder: Path) -> None:
    """The runs directly under ``folder``, newest first, each with its headline."""
    st.title("Runs")
    listing = folder_overview(folder)
    st.caption(f"{len(listing)} runs in {escaped(folder)}, newest first; pick one in the sidebar.")
    table = pd.DataFrame(
        {
            "run": [run.run_id for run in listing],
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
