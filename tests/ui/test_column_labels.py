"""Every column of every mart a demo run builds has a human label (the label catalogue,
pdbench.column_labels: the games' metric catalogues and dbt_project/seeds/column_labels.csv,
which may not label a column twice) or is on its list of columns never shown; the arena's
metric catalogue names the marts its metrics are columns of."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.column_labels import label_catalogue
from pdbench.metric_catalogue import load_game_catalogue
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics


def _unlabelled(run_dir: Path, marts: list[str]) -> tuple[int, dict[str, list[str]]]:
    catalogue = label_catalogue()
    checked, missing = 0, {}
    for mart in marts:
        path = run_dir / mart
        if not path.is_file():
            continue
        checked += 1
        columns = [
            column
            for column in pq.read_schema(path).names
            if catalogue.get(column) is None and column not in catalogue.never_shown
        ]
        if columns:
            missing[mart] = columns
    return checked, missing


def test_every_pd_mart_column_is_labelled(pd_run: Path, pd_round_robin_run: Path):
    checked, missing = _unlabelled(pd_run, list(PDMart))
    assert checked >= 12 and missing == {}
    checked, missing = _unlabelled(pd_round_robin_run, list(PDMart))
    assert checked >= 14 and missing == {}


def test_every_arena_mart_column_is_labelled(arena_run: Path):
    checked, missing = _unlabelled(arena_run, list(ArenaMart))
    assert checked >= 15 and missing == {}


def test_the_catalogue_metrics_are_the_interval_columns_of_aggregates(pd_run: Path):
    columns = pq.read_schema(pd_run / PDMart.AGGREGATES).names
    with_interval = [c.removesuffix("_ci_low") for c in columns if c.endswith("_ci_low")]
    catalogued = [c for m in pd_metrics().where(interval=("t", "wilson")) for c in m.columns()]
    assert with_interval == catalogued
    assert {c for m in pd_metrics().metrics for c in m.columns()} <= set(columns)


def test_every_series_mart_column_is_labelled(series_run: Path):
    checked, missing = _unlabelled(series_run, list(SeriesMart))
    assert checked == 2 and missing == {}


def test_every_score_arms_column_is_labelled(peerrank_run: Path):
    checked, missing = _unlabelled(peerrank_run, [ArenaMart.SCORE_ARMS])
    assert checked == 1 and missing == {}


def test_the_arena_catalogue_names_the_marts_of_its_metrics(
    arena_run: Path, series_run: Path, peerrank_run: Path
):
    schemas: dict[str, set[str]] = {}
    for run_dir in (arena_run, series_run, peerrank_run):
        for path in run_dir.glob("*.parquet"):
            schemas.setdefault(path.stem, set()).update(pq.read_schema(path).names)
    missing = []
    checked = 0
    for metric in load_game_catalogue("arena_metrics.csv").metrics:
        for mart in metric.marts:
            assert mart in schemas, (metric.name, mart)
            checked += 1
            if metric.name not in schemas[mart]:
                missing.append((mart, metric.name))
        # its interval is in one of its marts at least (model_score has it in
        # audience_scores, not beside each answer's score)
        ends = metric.interval_columns(metric.name, metric.label)[:2]
        for column, _ in ends:
            if not any(column in schemas[mart] for mart in metric.marts):
                missing.append((" ".join(metric.marts), column))
    assert checked > 100 and missing == []
    assert "top_score_rate" in schemas["judge_stats"]
