"""Stated strategies held against play, on the mock (configs/stated_strategies.yaml): an agent
that plays GRIM and states ALLC is caught, one that plays TFT and states TFT is not.

Against URND(0.5) over 20 fixed rounds and 20 replicates. GRIM stated 1 in every state; after
it cooperated and was defected on (cd) it defects, so the difference is 1 - 0 = 1 in every
match that met cd: exact, and inconsistent. TFT stated (1; 1, 0, 1, 0) and plays exactly that
(the mock's replies are all valid): every difference is 0, exact, consistent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart

from tests.conftest import CONFIGS


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    folder = tmp_path_factory.mktemp("stated")
    result = run_experiment(
        load_config(CONFIGS / "stated_strategies.yaml"), output_dir=folder / "stated"
    )
    return aggregate_run(result.run_dir)


def _rows(summary: AggregateSummary) -> dict[tuple[str, str], dict]:
    cursor = duckdb.sql(f"select * from '{summary.run_dir / PDMart.STATED_VS_PLAYED}'")
    names = [column[0] for column in cursor.description]
    return {
        (row["agent_name"], row["state"]): row
        for row in (dict(zip(names, values, strict=True)) for values in cursor.fetchall())
    }


def test_every_match_states_once_before_its_first_move(built: AggregateSummary):
    lines = [
        json.loads(line) for line in (built.run_dir / "statements.jsonl").read_text().splitlines()
    ]
    assert len(lines) == 40
    assert {(line["agent_name"], line["valid"], line["attempts"]) for line in lines} == {
        ("grim-says-allc", True, 1),
        ("tft-says-tft", True, 1),
    }
    calls = [json.loads(line) for line in (built.run_dir / "calls.jsonl").read_text().splitlines()]
    first = {}
    for call in calls:
        first.setdefault(call["match_id"], call["phase"])
    assert set(first.values()) == {"pd_strategy"}


def test_a_grim_player_that_states_allc_is_caught(built: AggregateSummary):
    rows = _rows(built)
    cd = rows["grim-says-allc", "cd"]
    assert (cd["stated_p"], cd["played_p"], cd["difference"]) == (1.0, 0.0, 1.0)
    assert (cd["ci_low"], cd["ci_high"]) == (1.0, 1.0)
    assert cd["ci_note"] == "exact: the same difference in every match"
    assert cd["is_inconsistent"]
    # it did cooperate first, as stated
    assert not rows["grim-says-allc", "first"]["is_inconsistent"]


def test_a_tft_player_that_states_tft_is_consistent_everywhere(built: AggregateSummary):
    tft = {state: row for (name, state), row in _rows(built).items() if name == "tft-says-tft"}
    assert set(tft) == {"first", "cc", "cd", "dc", "dd"}
    assert all(row["difference"] == 0 and not row["is_inconsistent"] for row in tft.values())
    assert tft["cd"]["stated_p"] == 0 and tft["dc"]["stated_p"] == 1


def test_a_run_without_statements_writes_the_mart_empty(tmp_path: Path):
    folder = tmp_path / "configs"
    shutil.copytree(CONFIGS, folder)
    text = (folder / "stated_strategies.yaml").read_text().replace("elicit_strategy: true", "")
    (folder / "quiet.yaml").write_text(text.replace("stated_strategies", "quiet"))
    result = run_experiment(load_config(folder / "quiet.yaml"), output_dir=tmp_path / "quiet")
    assert not (result.run_dir / "statements.jsonl").exists()
    summary = aggregate_run(result.run_dir)
    assert summary.tables[PDMart.STATED_VS_PLAYED] == 0


def test_a_missing_strategy_prompt_is_one_line_naming_the_field(tmp_path: Path):
    folder = tmp_path / "configs"
    shutil.copytree(CONFIGS, folder)
    (folder / "prompts/pd_strategy.md").unlink()
    with pytest.raises(ConfigError) as caught:
        load_config(folder / "stated_strategies.yaml")
    message = str(caught.value)
    assert (
        "strategy_prompt" in message and "prompt file not found: prompts/pd_strategy.md" in message
    )
    assert "\n" not in message.strip()


def test_the_report_shows_what_was_said_against_what_was_played(built: AggregateSummary):
    from pdbench.report import render_report

    page = render_report(built.run_dir)
    assert "Stated against played" in page
    assert "says one thing and plays another" in page
    assert "What the stated strategies would have earned" in page


def test_the_stated_table_is_played_against_a_copy_of_the_same_opponent(
    built: AggregateSummary,
):
    # A copy of URND taken before the match draws what the real one drew. TFT's table is
    # TFT, so it earns what the agent earned. ALLC's table cooperates throughout: 3 points
    # in each round where URND cooperated, 0 where it defected, counted here from the rounds.
    rounds = [
        json.loads(line) for line in (built.run_dir / "rounds.jsonl").read_text().splitlines()
    ]
    allc = [
        3.0 if line["agent_b_action"] == "C" else 0.0
        for line in rounds
        if line["condition"] == "grim_says_allc"
    ]
    grim = [line["agent_a_payoff"] for line in rounds if line["condition"] == "grim_says_allc"]
    rows = _rows(built)
    tft = rows["tft-says-tft", "first"]
    assert tft["stated_points_per_round"] == pytest.approx(tft["played_points_per_round"])
    liar = rows["grim-says-allc", "cd"]
    # every match has 20 rounds, so the mean of the matches' means is the mean of the rounds
    assert liar["stated_points_per_round"] == pytest.approx(sum(allc) / len(allc))
    assert liar["played_points_per_round"] == pytest.approx(sum(grim) / len(grim))


def test_the_overview_says_who_plays_otherwise_than_it_states(built: AggregateSummary):
    from pdbench.overview import run_overview

    texts = [f.text for f in run_overview(built.run_dir).findings if f.topic == "statements"]
    assert texts == [
        "Stated against played: grim-says-allc in grim_says_allc plays otherwise than it "
        "states in cd, dc, dd (in cd: stated 100.0% C, played 0.0%; difference 1.000 "
        "[1.000, 1.000]); as stated, within the intervals: tft-says-tft in tft_says_tft."
    ]


def test_the_dry_run_counts_one_statement_per_match_and_agent_asked():
    from pdbench import cli
    from typer.testing import CliRunner

    result = CliRunner().invoke(
        cli.app, ["run", str(CONFIGS / "stated_strategies.yaml"), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    # 40 matches of 20 rounds with one LLM agent each: 800 moves and 40 statements
    assert "provider calls: 840 (one per LLM move and strategy statement)" in result.stdout
