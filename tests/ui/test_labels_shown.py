"""Every page of every game, driven with Streamlit's AppTest on runs made by the real engine
and dbt, shows no raw column name: every table header, tile label and chart axis or legend
title is a human label, and every mart column a table shows is in the label catalogue."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from pdbench.column_labels import label_catalogue
from pdbench.ui.arena import pages as arena_pages
from pdbench.ui.pd import pages as pd_pages
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP

TITLED_CHANNELS = ("x", "y", "color", "fill", "stroke", "shape", "size", "opacity", "strokeDash")
"""Encoding channels that draw an axis or a legend, whose title a person reads."""


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in getattr(node, "children", {}).values():
        yield from _walk(child)


def _specs(at: AppTest) -> list[dict[str, Any]]:
    return [
        json.loads(element.proto.spec)
        for element in _walk(at._tree)
        if getattr(element, "type", None) == "vega_lite_chart"
    ]


def _encodings(spec: Any) -> Iterator[dict[str, Any]]:
    if isinstance(spec, dict):
        if isinstance(spec.get("encoding"), dict):
            yield spec["encoding"]
        for value in spec.values():
            yield from _encodings(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _encodings(value)


def _titles(encoding: dict[str, Any], channel: str) -> str | None:
    """The title ``channel`` of ``encoding`` draws (None: no axis or legend of its own)."""
    given = encoding.get(channel)
    if not isinstance(given, dict) or "field" not in given:
        return None
    if given.get("axis", {}) is None or given.get("legend", {}) is None:
        return None
    title = given.get("title", given["field"])
    return title if isinstance(title, str) else None


def _raw_chart_titles(spec: dict[str, Any]) -> list[str]:
    """The axis and legend titles of a chart that would read as a column name: a title with
    an underscore, or a field with one and no title (Vega-Lite then titles it by the field);
    and the axes whose layers give different titles (Vega-Lite joins them with commas)."""
    raw = []
    for encoding in _encodings(spec):
        for channel in TITLED_CHANNELS:
            title = _titles(encoding, channel)
            if title is not None and "_" in title:
                raw.append(f"{channel}: {title}")
    for layered in _layered(spec):
        for channel in ("x", "y"):
            titles = {_titles(layer.get("encoding", {}), channel) for layer in layered}
            titles.discard(None)
            if len(titles) > 1:
                raw.append(f"{channel}: {', '.join(sorted(titles))}")
    return raw


def _layered(spec: Any) -> Iterator[list[dict[str, Any]]]:
    """The layers of every layered chart in ``spec``."""
    if isinstance(spec, dict):
        if isinstance(spec.get("layer"), list):
            yield spec["layer"]
        for value in spec.values():
            yield from _layered(value)
    elif isinstance(spec, list):
        for value in spec:
            yield from _layered(value)


def _mart_columns(run_dir: Path) -> set[str]:
    return {name for path in run_dir.glob("*.parquet") for name in pq.read_schema(path).names}


def _assert_labelled(at: AppTest, run_dir: Path, where: str) -> int:
    """No raw header, tile or chart title on the page drawn; every mart column a table shows
    in the catalogue. Returns the number of tables and charts checked."""
    assert not at.exception, (where, [e.message for e in at.exception])
    catalogue = label_catalogue()
    marts = _mart_columns(run_dir)
    checked = 0
    for table in at.dataframe:
        config = json.loads(table.proto.columns)
        for column, given in config.items():
            if column == "_index":  # the row index, hidden
                continue
            header = given.get("label", column)
            assert "_" not in header, (where, column, header)
            assert column not in marts or catalogue.get(column) is not None, (where, column)
        checked += 1
    for metric in at.metric:
        assert "_" not in metric.label, (where, metric.label)
    for spec in _specs(at):
        assert _raw_chart_titles(spec) == [], (where, _raw_chart_titles(spec))
        checked += 1
    return checked


def _every_page(
    monkeypatch: pytest.MonkeyPatch, run_dir: Path, key: str | None, pages: list[str]
) -> int:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    checked = _assert_labelled(at, run_dir, "first page")
    for page in pages:
        assert key is not None
        at.radio(key=key).set_value(page)
        at.run()
        checked += _assert_labelled(at, run_dir, page)
    return checked


def test_every_pd_page_is_labelled(pd_run: Path, monkeypatch: pytest.MonkeyPatch):
    assert _every_page(monkeypatch, pd_run, "pd_page", pd_pages.PAGES) >= 20


def test_every_round_robin_page_is_labelled(
    pd_round_robin_run: Path, monkeypatch: pytest.MonkeyPatch
):
    assert _every_page(monkeypatch, pd_round_robin_run, "pd_page", pd_pages.PAGES) >= 15


def test_every_arena_page_is_labelled(arena_run: Path, monkeypatch: pytest.MonkeyPatch):
    assert _every_page(monkeypatch, arena_run, "arena_page", arena_pages.PAGES) >= 20


def test_the_score_arms_are_labelled(peerrank_run: Path, monkeypatch: pytest.MonkeyPatch):
    assert _every_page(monkeypatch, peerrank_run, "arena_page", ["Judges", "Pairwise"]) >= 4


def test_the_series_page_is_labelled(series_run: Path, monkeypatch: pytest.MonkeyPatch):
    assert _every_page(monkeypatch, series_run, None, []) >= 3


def test_a_raw_title_is_caught():
    """The check itself: a layer without a title on a shared axis is a raw title."""
    spec = {
        "layer": [
            {"encoding": {"y": {"field": "adjusted_score", "title": "adjusted score"}}},
            {"encoding": {"y": {"field": "adjusted_ci_low"}, "y2": {"field": "x_y"}}},
            {"encoding": {"x": {"field": "round_index", "axis": None}}},
        ]
    }
    assert _raw_chart_titles(spec) == [
        "y: adjusted_ci_low",
        "y: adjusted score, adjusted_ci_low",
    ]
