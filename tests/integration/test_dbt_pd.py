"""The PD marts built by dbt over a hand-made run directory, against hand-computed values.

dbt starts in seconds, so each run directory is aggregated once per session.
Collapse parameters of the fixture run: k = 3, threshold = 0.2 (a whole 3-round window
collapses with at most 1 cooperation out of 6 actions).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
import yaml
from pdbench.aggregate import AggregateSummary, aggregate_run
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError, RunDirError
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles

from tests.conftest import count_columns
from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir

MATCHES = [
    # TFT against ALLD, 6 and 4 rounds
    PlannedMatch("tft_vs_alld", 0, "CDDDDD", "DDDDDD"),
    PlannedMatch("tft_vs_alld", 1, "CDDD", "DDDD"),
    # an LLM against TFT; its round-3 reply stayed invalid and the fallback D was played
    PlannedMatch("llm_vs_tft", 0, "CCDC", "CCCD", kind_a="llm", invalid_rounds_a=(3,)),
    # aborted after one round: excluded from every metric, counted in n_aborted
    PlannedMatch("llm_vs_tft", 1, "C", "C", kind_a="llm", status="aborted"),
]
MART_FILES = tuple(PDMart)


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run_dir(tmp_path_factory.mktemp("pd_run"), MATCHES)


@pytest.fixture(scope="session")
def summary(run_dir: Path) -> AggregateSummary:
    return aggregate_run(run_dir, unit_tests=True)


def _declared_pd_unit_tests() -> int:
    """Unit tests written in the YAML of the PD models (folders named ``pd``)."""
    return sum(
        len((yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("unit_tests", []))
        for path in DBT_PROJECT_DIR.glob("models/**/pd/*.yml")
    )


def _rows(path: Path, sql: str) -> list[dict]:
    with duckdb.connect() as con:
        cursor = con.execute(sql.replace("{path}", f"read_parquet('{path}')"))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _aggregate(run_dir: Path, level: str, condition: str, replicate: int | None = None) -> dict:
    rows = _rows(
        run_dir / PDMart.AGGREGATES,
        f"select * from {{path}} where level = '{level}' and condition = '{condition}'"
        + ("" if replicate is None else f" and replicate = {replicate}"),
    )
    assert len(rows) == 1
    return rows[0]


def _digests(run_dir: Path) -> dict[str, str]:
    return {name: hashlib.sha256((run_dir / name).read_bytes()).hexdigest() for name in MART_FILES}


def test_build_writes_every_mart_and_passes_every_check(summary: AggregateSummary) -> None:
    assert summary.game == "pd"
    # aggregates: 3 ok replicates + 2 conditions; calls: agent_a of llm_vs_tft + the run row
    assert set(summary.tables) == set(PDMart)
    assert summary.tables == {
        "aggregates.parquet": 5,
        # each aggregates row once per agent side; memory-one: 4 previous rounds each
        "agent_metrics.parquet": 10,
        "memory_one.parquet": 40,
        # the condition rows of cooperation over time, once per agent side
        "agent_cooperation_over_time.parquet": 20,
        # every match record, the aborted one too
        "match_list.parquet": 4,
        # every round of every match, the aborted one's too: 6 + 4 + 4 + 1
        "rounds.parquet": 15,
        "calls_summary.parquet": 2,
        # the LLM agent's attempts: valid (no rule recorded by the fixture) and invalid
        "parse_rules.parquet": 2,
        # replicate rows 6 + 4 + 4, condition rows 6 (tft_vs_alld) + 4 (llm_vs_tft)
        "cooperation_over_time.parquet": 24,
        # one row per ok match and side: 3 matches x 2
        "tournament_match_scores.parquet": 6,
        # agents TFT, ALLD and the LLM agent
        "tournament_standings.parquet": 3,
        # each pair of those agents once: 3 x 2 / 2
        "tournament_player_comparisons.parquet": 3,
        # ordered pairs that met: TFT-ALLD, ALLD-TFT, LLM-TFT, TFT-LLM
        "tournament_payoff_matrix.parquet": 4,
        # no execution noise, so no flipped action to respond to
        "tournament_noise_responses.parquet": 0,
        # no agent played itself: the replicator dynamics and the Moran process need self-play
        "tournament_ecosystem.parquet": 0,
        "tournament_fixation.parquet": 0,
        "tournament_moran_simulations.parquet": 0,
        # no agent asked for its strategy
        "stated_vs_played.parquet": 0,
        # two conditions, so their one pair; the metrics defined in both conditions'
        # replicate 0, their one common ok replicate: 34 less retaliation_a, forgiveness_a,
        # fallback_move_share_a and _b, the 8 memory-one states (no state visited in both)
        # and time_to_collapse (llm_vs_tft never collapses)
        "comparisons.parquet": 21,
        # no probe, no fingerprint
        "fingerprints.parquet": 0,
        # 4 condition sides + 3 agents, each against the 6 classic references and the
        # policies played (policy_a, policy_b), never itself: policy_a 7, policy_b 7 and 7
        # in its two conditions, llm_a 8 in its condition and at the agent level: 7 + 7 +
        # 8 + 7 + (7 + 7 + 8)
        "strategy_fit.parquet": 51,
        # the three agents (policy_a, policy_b, the LLM agent) x the nine SFEM strategies
        "strategy_shares.parquet": 27,
    }
    # a failing unit or data test raises; these are the ones that ran and passed
    assert summary.n_unit_tests_passed == _declared_pd_unit_tests() >= 15
    assert summary.n_checks_passed - summary.n_unit_tests_passed >= 38
    assert "tft_vs_alld" in summary.text and "llm_vs_tft" in summary.text


def test_every_count_in_every_mart_is_an_integer(run_dir: Path, summary: AggregateSummary) -> None:
    counts = count_columns(run_dir)
    assert {"n_wins", "n_fixations", "tokens_in"} <= {column for _, column, _ in counts}
    assert [c for c in counts if c[2] not in {"BIGINT", "INTEGER"}] == []


def test_tft_against_alld_replicate(run_dir: Path, summary: AggregateSummary) -> None:
    row = _aggregate(run_dir, "replicate", "tft_vs_alld", 0)
    # (a, b) = CD DD DD DD DD DD
    assert row["rounds_played"] == 6
    assert row["cooperation_rate_a"] == pytest.approx(1 / 6)
    assert row["cooperation_rate_b"] == 0
    assert row["cooperation_rate"] == pytest.approx(1 / 12)
    assert row["mutual_defection_rate"] == pytest.approx(5 / 6)
    # A: 0 + 5 x 1 = 5; B: 5 + 5 x 1 = 10
    assert (row["total_payoff_a"], row["total_payoff_b"]) == (5, 10)
    assert row["exploitability_payoff_gap_a"] == 5
    assert row["exploitability_payoff_gap_b"] == -5
    # B defected in rounds 1..5, A answered D in rounds 2..6
    assert row["retaliation_rate_a"] == 1
    assert row["forgiveness_rate_a"] == 0
    # window of rounds 1..3: 1 cooperation of 6 actions = 0.167 <= 0.2
    assert row["time_to_collapse"] == 1
    assert row["is_nice_a"] is True and row["is_nice_b"] is False
    assert row["p_c_after_cd_a"] == 0 and row["p_c_after_dd_a"] == 0
    assert row["p_c_after_cc_a"] is None and row["p_c_after_dc_a"] is None
    assert row["fallback_move_share_a"] is None and row["fallback_move_share_b"] is None
    assert row["fallback_move_share"] is None  # two policies
    assert row["cooperation_rate_valid_a"] == pytest.approx(1 / 6)  # a policy: every move
    assert row["cooperation_rate_valid_b"] == 0


def test_viewer_marts_give_each_agent_its_own_rows(
    run_dir: Path, summary: AggregateSummary
) -> None:
    agents = {
        (row["level"], row["replicate"], row["side"]): row
        for row in _rows(
            run_dir / PDMart.AGENT_METRICS, "select * from {path} where condition = 'tft_vs_alld'"
        )
    }
    # replicate 0, (a, b) = CD DD DD DD DD DD: A 5 points, B 10; both retaliate every time
    tft, alld = agents[("replicate", 0, "agent_a")], agents[("replicate", 0, "agent_b")]
    assert (tft["agent_name"], alld["agent_name"]) == ("policy_a", "policy_b")
    assert (tft["total_payoff"], alld["total_payoff"]) == (5, 10)
    assert (tft["cooperation_rate"], alld["cooperation_rate"]) == (pytest.approx(1 / 6), 0)
    assert (tft["retaliation_rate"], alld["retaliation_rate"]) == (1, 1)
    # condition: A cooperated in 1 of 6 and 1 of 4 rounds
    assert agents[("condition", None, "agent_a")]["cooperation_rate"] == pytest.approx(5 / 24)
    memory = _rows(
        run_dir / PDMart.MEMORY_ONE,
        "select previous_round, p_cooperate from {path} where condition = 'tft_vs_alld' "
        "and replicate = 0 and side = 'agent_a' order by previous_round",
    )
    assert [(row["previous_round"], row["p_cooperate"]) for row in memory] == [
        ("CC", None),
        ("CD", 0),
        ("DC", None),
        ("DD", 0),
    ]
    over_time = _rows(
        run_dir / PDMart.AGENT_COOPERATION_OVER_TIME,
        "select side, round_index, n_replicates, cooperation_rate from {path} "
        "where condition = 'tft_vs_alld' and round_index in (1, 5) order by side, round_index",
    )
    # round 1: A cooperates in both replicates, B in neither; round 5 only replicate 0 reached
    assert [tuple(row.values()) for row in over_time] == [
        ("agent_a", 1, 2, 1),
        ("agent_a", 5, 1, 0),
        ("agent_b", 1, 2, 0),
        ("agent_b", 5, 1, 0),
    ]
    matches = _rows(
        run_dir / PDMart.MATCH_LIST, "select match_id, match_status, has_llm_agent from {path}"
    )
    assert [tuple(row.values()) for row in matches] == [
        ("llm_vs_tft/0", "ok", True),
        ("llm_vs_tft/1", "aborted", True),
        ("tft_vs_alld/0", "ok", False),
        ("tft_vs_alld/1", "ok", False),
    ]


def test_llm_replicate_with_an_invalid_reply(run_dir: Path, summary: AggregateSummary) -> None:
    row = _aggregate(run_dir, "replicate", "llm_vs_tft", 0)
    # (a, b) = CC CC DC CD
    assert row["cooperation_rate"] == 0.75
    assert (row["total_payoff_a"], row["total_payoff_b"]) == (11, 11)
    # one fallback round of four (the D of round 3); B is a policy
    assert row["fallback_move_share_a"] == 0.25
    assert row["fallback_move_share_b"] is None
    assert row["fallback_move_share"] == 1 / 8
    # A's valid moves C, C, C: the twin leaves the fallback D out
    assert (row["cooperation_rate_a"], row["cooperation_rate_valid_a"]) == (0.75, 1.0)
    # attempts 1, 1, 3, 1: the 3 of the fallback round were invalid
    assert row["invalid_attempt_share_a"] == 0.5
    assert row["n_fallback_moves_a"] == 1
    # the fixture's rounds do not record truncation (as schema version 1): NULL, not 0
    assert row["n_truncated_rounds_a"] is None
    # B never defected before the last round: A's retaliation and forgiveness are undefined
    assert row["retaliation_rate_a"] is None and row["forgiveness_rate_a"] is None
    assert row["retaliation_rate_b"] == 1
    # windows 1..3 and 2..4 hold 5 and 4 cooperations of 6: no collapse
    assert row["time_to_collapse"] is None
    assert row["n_never_collapsed"] == 1
    # A defected first (round 3), B only after (round 4)
    assert row["is_nice_a"] is False and row["is_nice_b"] is True
    # after CC: C then D -> 1/2; after DC (A D, B C): C -> 1
    assert row["p_c_after_cc_a"] == 0.5
    assert row["p_c_after_dc_a"] == 1


def test_condition_rows(run_dir: Path, summary: AggregateSummary) -> None:
    tft = _aggregate(run_dir, "condition", "tft_vs_alld")
    assert (tft["n_replicates"], tft["n_aborted"], tft["n_collapsed"]) == (2, 0, 2)
    # replicate rates 1/6 and 1/4 -> (1/6 + 1/4) / 2 = 5/24
    assert tft["cooperation_rate_a"] == pytest.approx(5 / 24)
    # totals 5 and 3 -> 4; lengths 6 and 4 -> 5, 10 in all
    assert tft["total_payoff_a"] == 4
    assert (tft["rounds_played"], tft["n_rounds"]) == (5, 10)
    assert tft["time_to_collapse"] == 1

    llm = _aggregate(run_dir, "condition", "llm_vs_tft")
    # the aborted replicate (one CC round) is left out of every metric and counted
    assert (llm["n_replicates"], llm["n_aborted"], llm["n_never_collapsed"]) == (1, 1, 1)
    assert llm["cooperation_rate"] == 0.75
    assert llm["time_to_collapse"] is None
    assert llm["collapse_k"] == 3 and llm["collapse_threshold"] == 0.2


def test_condition_intervals(run_dir: Path, summary: AggregateSummary) -> None:
    tft = _aggregate(run_dir, "condition", "tft_vs_alld")
    # two replicates, 1/6 and 1/4: mean 5/24, standard error |1/4 - 1/6| / 2 = 1/24,
    # t(0.975, 1) = 12.706: 5/24 -+ 12.706 / 24 reaches below 0, so the low end is clipped
    assert tft["cooperation_rate_a_ci_low"] == 0.0
    assert tft["cooperation_rate_a_ci_high"] == pytest.approx(5 / 24 + 12.706 / 24, abs=1e-9)
    assert tft["cooperation_rate_a_ci_note"] == "clipped to [0, 1]"
    # total payoffs 5 and 3: 4 -+ 12.706 x 1, a payoff is never clipped
    assert tft["total_payoff_a_ci_low"] == pytest.approx(4 - 12.706, abs=1e-9)
    assert tft["total_payoff_a_ci_high"] == pytest.approx(4 + 12.706, abs=1e-9)
    assert tft["total_payoff_a_ci_note"] is None
    # B defected in every round of both replicates (6 and 4 rounds): no spread, so no t
    # interval, but the binomial floor: the Wilson interval of 0 at the effective trials
    # 2^2 / (1/6 + 1/4) = 9.6, 0 .. z^2 / (9.6 + z^2); never a zero-width interval
    z2 = 1.959963984540054**2
    assert tft["cooperation_rate_b_ci_low"] == 0.0
    assert tft["cooperation_rate_b_ci_high"] == pytest.approx(z2 / (9.6 + z2), abs=1e-9)
    assert tft["cooperation_rate_b_ci_note"] == (
        "every replicate gave the same value; "
        "widened to the binomial floor (Wilson on the pooled trials)"
    )
    # memory-one DD of A: 0 cooperations in 4 + 2 visits, pooled: Wilson 0 .. z^2 / (6 + z^2)
    assert tft["p_c_after_dd_a"] == 0
    assert (tft["p_c_after_dd_a_ci_low"], tft["p_c_after_dd_a_ci_high"]) == (
        0.0,
        pytest.approx(z2 / (6 + z2), abs=1e-9),
    )
    assert tft["bootstrap_n"] == 200
    # one ok replicate: no interval, never a zero-width one
    llm = _aggregate(run_dir, "condition", "llm_vs_tft")
    assert llm["cooperation_rate"] == 0.75
    assert llm["cooperation_rate_ci_low"] is None and llm["cooperation_rate_ci_high"] is None
    assert llm["cooperation_rate_ci_note"] == "fewer than 2 replicates define it"
    replicate = _aggregate(run_dir, "replicate", "tft_vs_alld", 0)
    assert replicate["cooperation_rate_ci_low"] is None
    # the summary table: cooperation of both agents 1/12 and 1/8, mean 5/48, standard error
    # 1/48: 5/48 -+ 12.706 / 48 = -0.160 .. 0.369, clipped at 0
    rows = [line for line in summary.text.splitlines() if line.strip() and line[0] != " "]
    lines = {line.split()[0]: line for line in rows}
    assert "10.4% [0.0%, 36.9%]" in lines["tft_vs_alld"]
    assert "75.0%  " in lines["llm_vs_tft"] and "[" not in lines["llm_vs_tft"]
    # then the verdicts: the one pair shares replicate 0 only, cooperation 3/4 against 1/12,
    # a difference of +66.7 points; one pair can reject nothing (p = 1, BH p 1): none of the
    # 21 rows holds
    text = summary.text.splitlines()
    assert (
        "comparisons (first minus second): 0 of 21 differences hold after Benjamini-Hochberg "
        "(BH p <= 0.05, within each family, primary or exploratory)"
    ) in text
    assert (
        "  llm_vs_tft vs tft_vs_alld: cooperation, both agents +66.7 pp [—], BH p 1.000: "
        "inconclusive (few data: 1 replicate)"
    ) in text


def test_comparisons_of_a_single_common_replicate(run_dir: Path, summary: AggregateSummary) -> None:
    rows = _rows(
        run_dir / PDMart.COMPARISONS,
        "select * from {path} where metric in ('cooperation_rate_a', 'cooperation_rate')"
        " order by metric",
    )
    assert [row["metric"] for row in rows] == ["cooperation_rate", "cooperation_rate_a"]
    for row in rows:
        # llm_vs_tft sorts first; replicate 1 of llm_vs_tft aborted, so one pair
        assert (row["condition_1"], row["condition_2"]) == ("llm_vs_tft", "tft_vs_alld")
        assert row["n_pairs"] == 1 and row["ci_low"] is None and row["ci_high"] is None
        assert row["ci_note"] == "fewer than 2 paired replicates"
        # one difference d > 0: the flip that keeps it and the one that negates it (subset
        # mean d) give p_greater = 1 / 2, p_less = 2 / 2, p = min(1, 2 x 1 / 2) = 1
        assert (row["p_value"], row["n_flips"], row["is_exact_test"]) == (1.0, 2, True)
        assert (row["verdict"], row["is_few_data"]) == ("inconclusive", True)
    # replicate 0: the LLM cooperated in 3 of 4 rounds, TFT in 1 of 6
    assert rows[1]["mean_difference"] == pytest.approx(3 / 4 - 1 / 6)
    assert (rows[1]["agent_side"], rows[1]["agent_name_1"]) == ("a", "llm_a")
    assert rows[0]["agent_side"] is None


def test_metrics_match_a_plain_python_recomputation(
    run_dir: Path, summary: AggregateSummary
) -> None:
    """Recompute cooperation and totals straight from rounds.jsonl, independently of SQL."""
    lines = (run_dir / PDFiles.ROUNDS).read_text().splitlines()
    by_match: dict[tuple[str, int], list[dict]] = {}
    for line in lines:
        record = json.loads(line)
        by_match.setdefault((record["condition"], record["replicate"]), []).append(record)
    ok = {(m.condition, m.replicate) for m in MATCHES if m.status == "ok"}
    for (condition, replicate), rounds in by_match.items():
        if (condition, replicate) not in ok:
            continue
        row = _aggregate(run_dir, "replicate", condition, replicate)
        n_c_a = sum(r["agent_a_action"] == "C" for r in rounds)
        n_c_b = sum(r["agent_b_action"] == "C" for r in rounds)
        assert row["cooperation_rate_a"] == pytest.approx(n_c_a / len(rounds))
        assert row["cooperation_rate"] == pytest.approx((n_c_a + n_c_b) / (2 * len(rounds)))
        assert row["total_payoff_b"] == sum(r["agent_b_payoff"] for r in rounds)
        assert row["total_payoff_a"] == rounds[-1]["agent_a_cum_payoff"]


def test_cooperation_over_time(run_dir: Path, summary: AggregateSummary) -> None:
    rows = _rows(
        run_dir / "cooperation_over_time.parquet",
        "select * from {path} where level = 'condition' and condition = 'tft_vs_alld'"
        " order by round_index",
    )
    assert [row["round_index"] for row in rows] == [1, 2, 3, 4, 5, 6]
    # both replicates play CD in round 1, DD after; only replicate 0 reaches rounds 5 and 6
    assert [row["n_replicates"] for row in rows] == [2, 2, 2, 2, 1, 1]
    assert [row["cooperation_rate_a"] for row in rows] == [1, 0, 0, 0, 0, 0]
    assert rows[0]["cooperation_rate"] == 0.5
    assert rows[0]["cooperation_rate_sd"] == 0
    assert rows[5]["cooperation_rate_sd"] is None


def test_calls_summary(run_dir: Path, summary: AggregateSummary) -> None:
    rows = _rows(run_dir / "calls_summary.parquet", "select * from {path} order by level")
    agent, run = rows
    # 4 rounds with one reply each, 3 invalid replies in round 3, then the aborted match:
    # 1 valid reply and 3 invalid ones
    assert (agent["level"], agent["condition"], agent["agent"]) == (
        "agent",
        "llm_vs_tft",
        "agent_a",
    )
    assert (agent["n_calls"], agent["n_ok"], agent["n_invalid"]) == (10, 4, 6)
    assert agent["invalid_attempt_share"] == 0.6
    assert (agent["tokens_in"], agent["tokens_out"]) == (1000, 20)
    # one reasoning token per call; every invalid reply was cut at the token limit
    assert (agent["tokens_reasoning"], agent["n_truncated"]) == (10, 6)
    assert run["level"] == "run" and run["n_calls"] == 10
    assert (run["tokens_reasoning"], run["n_truncated"]) == (10, 6)


def test_tournament_match_scores(run_dir: Path, summary: AggregateSummary) -> None:
    """tft_vs_alld replicate 0, (C, D) then 5 x (D, D): A scores 0 + 5 = 5, B 5 + 5 = 10."""
    rows = _rows(
        run_dir / "tournament_match_scores.parquet",
        "select * from {path} where match_id = 'tft_vs_alld/0' order by side",
    )
    picked = [
        (r["side"], r["agent"], r["opponent"], r["n_rounds"], r["score"], r["opponent_score"],
         r["is_win"])
        for r in rows
    ]  # fmt: skip
    assert picked == [
        ("agent_a", "policy_a", "policy_b", 6, 5.0, 10.0, False),
        ("agent_b", "policy_b", "policy_a", 6, 10.0, 5.0, True),
    ]
    assert rows[0]["score_per_round"] == pytest.approx(5 / 6)
    assert rows[0]["cooperation_rate"] == pytest.approx(1 / 6)
    assert rows[1]["cooperation_rate"] == 0.0
    # the aborted match has no row
    aborted = _rows(
        run_dir / "tournament_match_scores.parquet",
        "select * from {path} where match_id = 'llm_vs_tft/1'",
    )
    assert aborted == []


def test_aggregate_is_idempotent(run_dir: Path, summary: AggregateSummary) -> None:
    before = _digests(run_dir)
    again = aggregate_run(run_dir)
    assert _digests(run_dir) == before
    assert again.tables == summary.tables
    assert again.text == summary.text


def test_torn_last_line_and_empty_calls(tmp_path: Path) -> None:
    """A crash mid-match: the last line is torn and the match has no match record."""
    run_dir = write_run_dir(
        tmp_path / "torn",
        [
            PlannedMatch("tft_vs_alld", 0, "CDDD", "DDDD"),
            PlannedMatch("tft_vs_alld", 1, "CD", "DD", status=None),
        ],
    )
    with (run_dir / PDFiles.ROUNDS).open("a") as handle:
        handle.write('{"schema_version": 1, "run_id": "fixture", "match_id": "tft_vs_al')
    assert (run_dir / RunFiles.CALLS).read_text() == ""

    summary = aggregate_run(run_dir)

    row = _aggregate(run_dir, "condition", "tft_vs_alld")
    assert (row["n_replicates"], row["n_incomplete"]) == (1, 1)
    assert row["rounds_played"] == 4
    assert row["cooperation_rate_a"] == 0.25
    # a policy-only run made no call: its calls summary is not built, only written empty
    # with its columns (no all-NULL row)
    assert summary.tables["calls_summary.parquet"] == 0
    assert "pd_calls_summary" not in summary.models
    columns = _rows(run_dir / "calls_summary.parquet", "describe select * from {path}")
    assert {"level", "n_calls"} <= {c["column_name"] for c in columns}


def test_failing_check_raises_and_names_it(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "bad", [PlannedMatch("c", 0, "CC", "CD")])
    rounds = (
        (run_dir / PDFiles.ROUNDS)
        .read_text()
        .replace('"agent_b_action":"D"', '"agent_b_action":"X"')
    )
    (run_dir / PDFiles.ROUNDS).write_text(rounds)
    with pytest.raises(AggregationError, match="accepted_values_int_pd_round_features_action_b"):
        aggregate_run(run_dir)


@pytest.mark.parametrize(
    "edit_rounds",
    [lambda lines: lines[:1] + lines[2:], lambda lines: lines + lines[-1:]],
    ids=["a-round-deleted", "a-round-doubled"],
)
def test_a_match_without_exactly_its_rounds_fails_the_build(tmp_path: Path, edit_rounds) -> None:
    run_dir = write_run_dir(tmp_path / "holed", [PlannedMatch("c", 0, "CCD", "CDD")])
    path = run_dir / PDFiles.ROUNDS
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) == 3
    path.write_text("".join(edit_rounds(lines)))
    with pytest.raises(AggregationError, match="assert_pd_matches_have_all_their_rounds"):
        aggregate_run(run_dir)


@pytest.mark.parametrize(
    ("prepare", "message"),
    [
        (lambda d: None, "run: no such run directory"),
        (lambda d: d.mkdir(), "run_manifest.json is missing"),
        (lambda d: _without_rounds(d, empty=True), "rounds.jsonl is empty"),
        (lambda d: _without_rounds(d, empty=False), "rounds.jsonl is missing"),
    ],
    ids=["no-dir", "no-manifest", "empty-rounds", "no-rounds"],
)
def test_unusable_run_dir_fails_in_one_line(tmp_path: Path, prepare, message: str) -> None:
    run_dir = tmp_path / "run"
    prepare(run_dir)
    with pytest.raises(RunDirError, match=message) as caught:
        aggregate_run(run_dir)
    assert "\n" not in str(caught.value)


def _without_rounds(run_dir: Path, *, empty: bool) -> None:
    write_run_dir(run_dir, [PlannedMatch("c", 0, "C", "C")])
    if empty:
        (run_dir / PDFiles.ROUNDS).write_text("\n")
    else:
        (run_dir / PDFiles.ROUNDS).unlink()


def test_a_plain_dbt_build_on_a_pd_run_refuses_to_write_the_arena_marts(tmp_path: Path) -> None:
    """`dbt build` by hand, as docs/metrics.md shows, but without the game's selector."""
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CD", "DD")])
    dbt = Path(sys.executable).parent / "dbt"
    env = {**os.environ, "PDBENCH_RUN_DIR": str(run_dir), "DBT_SEND_ANONYMOUS_USAGE_STATS": "0"}
    common = ["--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")]

    plain = subprocess.run(
        [str(dbt), "build", *common],
        cwd=DBT_PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert plain.returncode != 0
    assert "this is a pd run" in plain.stdout
    assert "--select tag:pd" in plain.stdout
    assert sorted(p.name for p in run_dir.glob("*.parquet")) == []

    # the game's own models run (one mart and what it reads, to keep the test short)
    selected = subprocess.run(
        [str(dbt), "run", "--select", "+pd_match_list", *common],
        cwd=DBT_PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert selected.returncode == 0, selected.stdout[-2000:]
    assert (run_dir / "match_list.parquet").is_file()
    assert not (run_dir / "leaderboard.parquet").exists()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda lines: [lines[0].replace(":3.0", ':"lots"', 1), *lines[1:]],
         r"rounds.jsonl: agent_a_payoff: a JSON varchar \(\"lots\"\) where a DOUBLE belongs"),
        (lambda lines: [*lines[:1], '{"schema_version":1,"run_id":"fix\n', *lines[1:]],
         r"Malformed JSON in file \".*rounds.jsonl\", at byte \d+ in line \d+"),
        (lambda lines: ["\x00\x01garbage\n", *lines],
         r"Malformed JSON in file \".*rounds.jsonl\", at byte \d+ in line \d+"),
    ],
    ids=["a-payoff-of-lots", "a-torn-line-mid-file", "bytes-that-are-not-json"],
)  # fmt: skip
def test_a_damaged_raw_file_fails_in_one_line_naming_the_file_and_where(
    tmp_path: Path, damage, message: str
) -> None:
    run_dir = write_run_dir(tmp_path / "damaged", [PlannedMatch("c", 0, "CCD", "CDD")])
    path = run_dir / PDFiles.ROUNDS
    path.write_text("".join(damage(path.read_text().splitlines(keepends=True))))
    with pytest.raises(AggregationError, match=message) as caught:
        aggregate_run(run_dir)
    assert "\n" not in str(caught.value)


def test_a_torn_last_line_is_cut_off_and_reported(tmp_path: Path) -> None:
    run_dir = write_run_dir(tmp_path / "torn", [PlannedMatch("c", 0, "CCD", "CDD")])
    path = run_dir / PDFiles.ROUNDS
    complete = path.read_text()
    tail = '{"schema_version":1,"run_id":"fixture","match_'
    path.write_text(complete + tail)
    told: list[str] = []
    summary = aggregate_run(run_dir, on_start=told.append)
    assert path.read_text() == complete
    assert [t for t in told if t.startswith("warning: ")] == [
        f"warning: {path}: line 4: a torn last line ({len(tail)} bytes, a crash while writing) "
        "was cut off; every complete line is kept"
    ]
    assert summary.tables["aggregates.parquet"] == 2


def test_longest_defection_streak_is_a_count_from_the_rounds(
    run_dir: Path, summary: AggregateSummary
) -> None:
    """Each replicate's longest run of D, counted here from rounds.jsonl, is the mart's."""
    actions: dict[tuple[str, str], list[str]] = {}
    for line in (run_dir / PDFiles.ROUNDS).read_text().splitlines():
        record = json.loads(line)
        for side in "ab":
            key = (record["match_id"], side)
            actions.setdefault(key, []).append(record[f"agent_{side}_action"])
    counted = {
        key: max(
            (len(list(run)) for action, run in itertools.groupby(moves) if action == "D"), default=0
        )
        for key, moves in actions.items()
    }
    for match in MATCHES:
        if match.status != "ok":
            continue
        row = _aggregate(run_dir, "replicate", match.condition, match.replicate)
        for side in "ab":
            assert row[f"longest_defection_streak_{side}"] == counted[(match.match_id, side)]
    # by hand: TFT played CDDDDD and CDDD (runs of 5 and 3), ALLD 6 and 4 D in a row
    condition = _aggregate(run_dir, "condition", "tft_vs_alld")
    assert condition["longest_defection_streak_a"] == 4.0
    assert condition["longest_defection_streak_b"] == 5.0
