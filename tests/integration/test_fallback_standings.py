"""A round robin with an LLM agent whose every reply is invalid: the standings mark it as
mostly fallback moves (its place is its fallback's, not the model's play) in the mart, the
terminal summary, the overview's standings sentence and the report, and leave an LLM agent
with valid replies unmarked.

``smol``: a mock LLM agent (it would play ALLC), every reply invalid, no retry, fallback D:
all 24 of its moves in each of its 2 matches of each of 2 replicates are fallbacks (share
1.0). ``wise``: a mock LLM agent playing TFT with valid replies (share 0.0). ``ALLD``: a
policy (no share)."""

from __future__ import annotations

import html
import shutil

import duckdb
import pytest
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.games import load_config
from pdbench.overview import manifest_of
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart
from pdbench.pd.overview import pd_findings
from pdbench.pd.summary import standings_table
from pdbench.report import render_report

from tests.conftest import CONFIGS, write_experiment

_MARK = "smol (mostly fallback moves: 100.0%)"


def _llm(name: str, mock: dict[str, object]) -> dict[str, object]:
    overrides = {"name": name, "max_retries": 0, "mock": mock}
    return {"ref": "agents/llm_default.yaml", "overrides": overrides}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> AggregateSummary:
    folder = tmp_path_factory.mktemp("fallback_standings")
    shutil.copytree(CONFIGS, folder, dirs_exist_ok=True)
    config = write_experiment(
        folder,
        name="fallback_standings.yaml",
        run_id="fallback_standings",
        conditions=[],
        round_robin={
            "agents": [
                _llm("smol", {"strategy": "ALLC", "invalid_rate": 1.0}),
                _llm("wise", {"strategy": "TFT"}),
                "ALLD",
            ]
        },
    )
    result = run_experiment(load_config(config), output_dir=folder / "fallback_standings")
    return aggregate_run(result.run_dir)


def test_the_mart_holds_each_llm_agents_share_of_fallback_moves(built: AggregateSummary):
    rows = duckdb.sql(
        "select agent, agent_fallback_move_share "
        f"from '{built.run_dir / PDMart.TOURNAMENT_STANDINGS}' order by agent"
    ).fetchall()
    assert rows == [("ALLD", None), ("smol", 1.0), ("wise", 0.0)]


def test_the_terminal_standings_mark_the_mostly_fallback_agent(built: AggregateSummary):
    lines = standings_table(built.run_dir, built.tables)
    rows = [line for line in lines if line[:1].isdigit()]
    assert len(rows) == 3
    assert sum(_MARK in row for row in rows) == 1
    assert not any("wise (mostly" in row or "ALLD (mostly" in row for row in rows)
    assert lines[-2] == (
        "mostly fallback moves: more than half of the agent's moves were its fallback after "
        "invalid replies, so its place is its fallback's, not the model's play"
    )


def test_the_overview_standings_sentence_marks_it(built: AggregateSummary):
    manifest = manifest_of(built.run_dir)
    (sentence,) = [f.text for f in pd_findings(built.run_dir, manifest) if f.topic == "standings"]
    # smol plays D throughout (its fallback), as ALLD does: against ALLD 1 point a round, against
    # TFT 5 then 11 x 1 = 16 in 12 rounds; (1 + 16 / 12) / 2 = 1.167 for both, every replicate
    assert sentence.startswith(
        f"ALLD and {_MARK} tie for first place at 1.167 points/round (no interval: every replicate"
    )
    assert sentence.endswith(
        " Mostly fallback moves after invalid replies: smol (100.0% of its moves); its place "
        "is its fallback's, not the model's play."
    )


def test_the_report_standings_mark_it(built: AggregateSummary):
    text = html.unescape(render_report(built.run_dir))
    assert _MARK in text
    assert "in more than half its moves: its place is its fallback's, not the model's play" in text
