"""The report of real runs states what the run played and how its numbers were computed, with
the run's own values: a PD experiment under a payoff table that is not the default (its
payoffs, horizon, noise, the LLM agents' fallback moves as the marts count them), a round
robin (its payoff matrix as the mart holds it), an arena tournament (its Benjamini-Hochberg
family, false discovery rate, bootstrap size, normalisation, invalid replies by phase) and an
imported run (its source file and hash, its source's payoffs). Every chart has a text
alternative naming each of its rows, and every p-value is written the one way.

Each run is played (or imported) and aggregated once for the module, with the mock provider.
"""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from importlib import metadata
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import CONFIGS, REPO, write_arena, write_experiment

runner = CliRunner()
PAYOFFS = {"CC": [4, 4], "CD": [0, 7], "DC": [7, 0], "DD": [2, 2]}
"""Not the default 3/0/5/1: the report must show these."""


def _play(config: Path, run_dir: Path) -> Path:
    result = runner.invoke(cli.app, ["run", str(config), "--output-dir", str(run_dir)])
    assert result.exit_code == 0, result.output
    return run_dir


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report_runs")
    shutil.copytree(CONFIGS, folder / "configs")
    return folder


@pytest.fixture(scope="module")
def pd_run(folder: Path) -> Path:
    """A policy pairing and an LLM agent whose replies are mostly invalid (fallback D)."""
    config = write_experiment(
        folder / "configs",
        "payoffs.yaml",
        run_id="payoffs",
        payoffs=PAYOFFS,
        horizon={"type": "fixed", "n": 9},
        noise=0.02,
        conditions=[
            {
                "name": "tft_vs_alld",
                "agent_a": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "ALLD"}},
            },
            {
                "name": "shaky_llm_vs_tft",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {
                        "persona": "cooperative",
                        "mock": {"strategy": "ALLC", "invalid_rate": 0.8},
                    },
                },
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            },
        ],
    )
    return _play(config, folder / "runs" / "payoffs")


@pytest.fixture(scope="module")
def round_robin(folder: Path) -> Path:
    config = write_experiment(
        folder / "configs",
        "rr.yaml",
        run_id="rr",
        horizon={"type": "fixed", "n": 8},
        conditions=[],
        round_robin={"agents": ["TFT", "ALLD", "GRIM"]},
    )
    return _play(config, folder / "runs" / "rr")


@pytest.fixture(scope="module")
def arena(folder: Path) -> Path:
    players = [
        {
            "ref": "agents/arena_player.yaml",
            "overrides": {
                "name": f"p{i}",
                "mock": {
                    "answer_skill": 0.9 - 0.2 * i,
                    "invalid_rate": 0.3 if i == 1 else 0,
                    **({"favours": "p2", "favour_bonus": 4.0} if i == 3 else {}),
                },
            },
        }
        for i in range(4)
    ]
    config = write_arena(
        folder / "configs",
        players=players,
        bootstrap={"n": 30},
        anomaly={"permutations": 400, "fdr": 0.2},
        normalization="zscore",
    )
    return _play(config, folder / "runs" / "arena")


@pytest.fixture(scope="module")
def imported(folder: Path) -> Path:
    run_dir = folder / "runs" / "akata"
    result = runner.invoke(
        cli.app,
        ["import", "csv", str(REPO / "tests/data/import/akata_pd_excerpt.csv"), "--mapping",
         str(CONFIGS / "import/akata_pd.yaml"), "--output-dir", str(run_dir)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return run_dir


def _report(run_dir: Path) -> str:
    out = run_dir.parent / f"{run_dir.name}.html"
    result = runner.invoke(cli.app, ["report", str(run_dir), "--output", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def _text(html: str) -> str:
    """The report as a reader sees it: tags dropped, cells apart by spaces."""
    html = re.sub(r"<(style|svg)\b.*?</\1>", " ", html, flags=re.S)
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def _facts(html: str) -> dict[str, str]:
    return {
        unescape(name): unescape(value)
        for name, value in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", html)
    }


def _rows(html: str, heading: str) -> list[list[str]]:
    """The body rows of the table under ``heading``, each cell as text."""
    section = html.split(f"<h2>{heading}</h2>", 1)[1].split("</table>", 1)[0]
    body = section.split("<tbody>", 1)[1]
    return [
        [
            unescape(re.sub(r"<[^>]+>", "", cell))
            for cell in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row)
        ]
        for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def _manifest(run_dir: Path) -> dict:
    return json.loads((run_dir / "run_manifest.json").read_text(encoding="utf-8"))


def _common(html: str, run_dir: Path) -> None:
    """What every report holds: the versions, a text alternative for every chart, one
    p-value format, nothing fetched."""
    facts = _facts(html)
    assert facts["pdbench that played it"] == _manifest(run_dir)["versions"]["pdbench"]
    assert facts["pdbench writing this report"] == metadata.version("pdbench")
    charts = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert charts
    for chart in charts:
        (title,) = re.findall(r"<title>(.+?)</title>", chart)
        (desc,) = re.findall(r"<desc>(.+?)</desc>", chart)
        labels = re.findall(r'text-anchor="end">([^<]+)</text>', chart)
        assert title and all(label in desc for label in labels), (title, desc)
    assert not re.search(r"\b(?:BH p|q) 0\.000\b", _text(html))
    assert "<script" not in html and not re.findall(r"(?:src|href)=", html)


def test_a_pd_report_holds_its_payoffs_horizon_noise_and_fallback_moves(pd_run: Path):
    html = _report(pd_run)
    _common(html, pd_run)
    matrix = _rows(html, "Payoff table")
    assert matrix == [["A plays C", "4, 4", "0, 7"], ["A plays D", "7, 0", "2, 2"]]
    facts = _facts(html)
    assert facts["horizon"] == "fixed, 9 rounds"
    assert facts["noise"].startswith("0.02 ")
    assert facts["replicates per condition"] == "2"
    fallbacks = duckdb.sql(
        f"select agent_name, condition, n_fallback_moves from '{pd_run / 'agent_metrics.parquet'}'"
        " where level = 'condition' and n_fallback_moves is not null"
    ).fetchall()
    assert [row[:2] for row in fallbacks] == [("mock/mock-pd:cooperative", "shaky_llm_vs_tft")]
    (agent, condition, moves) = fallbacks[0]
    assert moves > 0
    (row,) = _rows(html, "Invalid replies and fallback moves")
    assert row[:2] == [agent, condition] and row[5] == str(moves)
    per_agent = {tuple(row[:3]): row[3:] for row in _rows(html, "Per agent")}
    query = (
        f"select fallback_move_share_a from '{pd_run / 'aggregates.parquet'}' "
        f"where level = 'condition' and condition = '{condition}'"
    )
    ((share,),) = duckdb.sql(query).fetchall()
    assert share > 0 and per_agent[(agent, condition, "A")][-1] == f"{share:.1%}"
    assert per_agent[("TFT", "tft_vs_alld", "A")][-1] == "—"  # a policy plays no fallback
    text = _text(html)
    assert f"{moves} fallback moves in all" in text
    assert f"This run: {moves} fallback moves by its 1 LLM seat " in text
    primary, exploratory = duckdb.sql(
        "select count(p_value) filter (where family = 'primary'), "
        "count(p_value) filter (where family = 'exploratory') "
        f"from '{pd_run / 'comparisons.parquet'}'"
    ).fetchall()[0]
    assert primary > 0 and exploratory > 0
    assert f"Benjamini-Hochberg within two families: primary, {primary} tests" in text
    assert f"and exploratory, {exploratory} tests (every other metric)" in text
    assert "What each comparison could have detected" in text
    assert "Student's t over the replicates of a condition" in text
    assert "Wilson score interval on the pooled counts" in text


def test_a_round_robin_report_holds_its_payoff_matrix(round_robin: Path):
    html = _report(round_robin)
    _common(html, round_robin)
    cells = duckdb.sql(
        f"select agent, opponent, mean_score_per_round from "
        f"'{round_robin / 'tournament_payoff_matrix.parquet'}'"
    ).fetchall()
    rows = {row[0]: row[1:] for row in _rows(html, "Payoff matrix of the round robin")}
    opponents = sorted({opponent for _, opponent, _ in cells})
    assert sorted(rows) == sorted({agent for agent, _, _ in cells})
    for agent, opponent, score in cells:
        assert rows[agent][opponents.index(opponent)] == f"{score:.3f}"
    assert _facts(html)["round robin"] == "3 agents, every pairing"
    headings = re.findall(r"<h2>(.*?)</h2>", html)
    results = headings[headings.index("Overview") + 1 :]
    assert results[:3] == [
        "Who wins the round robin", "Round-robin standings", "Payoff matrix of the round robin"
    ]  # fmt: skip
    winner = duckdb.sql(
        f"select agent from '{round_robin / 'tournament_standings.parquet'}' "
        "where agent is not null order by overall_rank, agent limit 1"
    ).fetchall()[0][0]
    (first_chart,) = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)[:1]
    assert f">1. {winner}</text>" in first_chart
    assert "This run has no LLM agent, so no fallback move." in _text(html)
    assert "Invalid replies and fallback moves" not in html
    assert "Round-robin standings" in html


def test_an_arena_report_names_its_bh_family_threshold_and_invalid_replies(arena: Path):
    html = _report(arena)
    _common(html, arena)
    text = _text(html)
    pairs = duckdb.sql(
        f"select count(q_value) from '{arena / 'judge_player_bias.parquet'}'"
    ).fetchall()[0]
    assert pairs[0] > 0
    assert f"one family of all {pairs[0]} judge × player pairs of the run" in text
    assert "scoring.anomaly.fdr = 0.2" in text
    flagged = _rows(html, "Flagged judges")
    assert ["p3", "p2"] in [row[:2] for row in flagged]  # the planted favour
    assert "flagged when q ≤ 0.2 (see Methods for the family)" in text
    assert "percentiles of a bootstrap over questions (30 replicates" in text
    assert "zscore: 5 + 2.5 × (score − the judge's mean)" in text
    phases = dict(
        duckdb.sql(
            f"select phase, sum(n_invalid) from '{arena / 'calls_summary.parquet'}' group by phase"
        ).fetchall()
    )
    shown = {row[0]: row for row in _rows(html, "Invalid replies by phase")}
    assert set(shown) == set(phases)
    for phase, invalid in phases.items():
        assert shown[phase][2] == str(int(invalid))
    assert sum(phases.values()) > 0  # p1 answers invalid 30% of the time
    players = {row[0]: row[2] for row in _rows(html, "Players")}
    assert players == {f"p{i}": "mock/mock-arena" for i in range(4)}


def test_an_imported_report_names_its_source_and_its_payoffs(imported: Path):
    html = _report(imported)
    _common(html, imported)
    facts = _facts(html)
    (source,) = _manifest(imported)["imported"]["sources"]
    assert facts["source"] == "imported (csv format)"
    assert facts["source file"] == f"{source['path']} (sha256 {source['sha256']})"
    assert _rows(html, "Payoff table") == [
        ["A plays C", "8, 8", "0, 10"],
        ["A plays D", "10, 0", "5, 5"],
    ]
    assert facts["horizon"] == "fixed, 10 rounds"
    seats = duckdb.sql(
        f"select count(*) from '{imported / 'agent_metrics.parquet'}' "
        "where level = 'condition' and agent_kind = 'llm' and fallback_move_share is null"
    ).fetchall()[0][0]
    assert seats > 0
    assert f"source did not record whether its {seats} LLM seats' replies were valid" in _text(html)


def test_an_imported_council_report_says_no_judge_test_ran(folder: Path):
    run_dir = folder / "runs" / "council"
    result = runner.invoke(
        cli.app,
        ["import", "lm-council", str(REPO / "tests/data/lm_council/lmc_ei.jsonl"),
         "--output-dir", str(run_dir)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    html = _report(run_dir)
    _common(html, run_dir)
    text = _text(html)
    assert "Judge bias: not tested" in text
    fits = run_dir / "bradley_terry.parquet"
    query = f"select distinct bootstrap_n from '{fits}' where player is not null"
    ((bootstrap,),) = duckdb.sql(query).fetchall()
    baseline = _manifest(run_dir)["scoring"]["pairwise"]["baseline"]
    assert f"(1000 for the baseline, {baseline})" in text
    assert f"bootstrap over questions ({bootstrap} replicates)" in text
    assert _facts(html)["source"] == "imported (lm-council format)"
