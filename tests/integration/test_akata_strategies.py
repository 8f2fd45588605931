"""Akata et al.'s whole Prisoner's Dilemma (tests/data/import/akata_pd.csv, MIT; 64 matches of
10 rounds), imported and aggregated: GPT-4 is unforgiving, as the paper reports, by both of
pdbench's strategy readings (docs/reproducing.md).

By hand from the CSV: act_gpt4 plays 16 matches (8 as player1, 8 as player2, its self-play
counted on both sides) and 160 rounds; in 3 of them it chooses otherwise than GRIM would
(3 / 160 = 0.019), the single-label fit's distance, and SFEM's tremble with every match
on GRIM."""

from __future__ import annotations

import csv
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.aggregate import aggregate_run
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
AKATA = REPO / "tests" / "data" / "import" / "akata_pd.csv"
MAPPING = REPO / "configs" / "import" / "akata_pd.yaml"


def _grim_deviations() -> tuple[int, int]:
    """Rounds GPT-4 played and those where GRIM (J first; F for good once the other played
    F) would have chosen otherwise, counted from the CSV."""
    rows = list(csv.DictReader(AKATA.open(encoding="utf-8")))
    matches: list[list[dict[str, str]]] = []
    for row in rows:
        if row["round"] == "1":
            matches.append([])
        matches[-1].append(row)
    played = deviations = 0
    for match in matches:
        for own, other in (("1", "2"), ("2", "1")):
            if match[0][f"player{own}"] != "act_gpt4":
                continue
            triggered = False
            for row in match:
                played += 1
                deviations += row[f"answer{own}"] != ("F" if triggered else "J")
                triggered = triggered or row[f"answer{other}"] == "F"
    return played, deviations


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("akata") / "akata_pd"
    result = CliRunner().invoke(
        cli.app,
        ["import", "csv", str(AKATA), "--mapping", str(MAPPING), "--output-dir", str(out),
         "--no-aggregate"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    aggregate_run(out)
    return out


def test_gpt4_is_grim_by_the_single_label_fit(run_dir: Path):
    played, deviations = _grim_deviations()
    assert (played, deviations) == (160, 3)
    closest = duckdb.sql(
        f"select reference, n_rounds, distance from '{run_dir / 'strategy_fit.parquet'}' "
        "where level = 'agent' and agent_name = 'act_gpt4' and fit_rank = 1"
    ).fetchall()
    assert closest == [("GRIM", played, pytest.approx(deviations / played))]


def test_gpt4_is_grim_by_its_strategy_shares(run_dir: Path):
    played, deviations = _grim_deviations()
    rows = duckdb.sql(
        f"select strategy, share, share_ci_low, tremble, n_matches "
        f"from '{run_dir / 'strategy_shares.parquet'}' where agent_name = 'act_gpt4' "
        "order by share desc, strategy"
    ).fetchall()
    strategy, share, low, tremble, n_matches = rows[0]
    assert (strategy, n_matches) == ("GRIM", 16)
    assert share == pytest.approx(1.0) and low >= 0.5
    # every match on GRIM: the tremble is GRIM's deviations over GPT-4's choices
    assert tremble == pytest.approx(deviations / played, abs=1e-6)
    assert sum(row[1] for row in rows) == pytest.approx(1.0)
