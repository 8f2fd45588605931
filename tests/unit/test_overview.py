"""The overview's sentences (:mod:`pdbench.overview`) on small marts written here by hand: each
sentence names the right agent, condition or player and the mart's numbers with their
intervals, in the label catalogue's formats; inconclusive parts say why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench.arena.marts import ArenaMart
from pdbench.overview import folder_overview, run_overview
from pdbench.pd.marts import PDMart


def _write(path: Path, select: str) -> None:
    with duckdb.connect() as con:
        con.execute(f"copy ({select}) to '{path}' (format parquet)")


def _manifest(run_dir: Path, game: str, *, round_robin: bool = False) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    config = {"round_robin": {"agents": ["TFT", "ALLD"]} if round_robin else None}
    manifest = {"run_id": run_dir.name, "game": game, "status": "completed", "config": config}
    (run_dir / "run_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _side(metric: str, side: str, value, low, high, note) -> str:
    def sql(v):
        return "null" if v is None else (f"'{v}'" if isinstance(v, str) else repr(v))

    return (
        f"{sql(value)}::double as {metric}_{side}, {sql(low)}::double as {metric}_{side}_ci_low, "
        f"{sql(high)}::double as {metric}_{side}_ci_high, "
        f"{sql(note)}::varchar as {metric}_{side}_ci_note"
    )


def _condition(
    name: str,
    a: str,
    b: str,
    n: int,
    coop: tuple,
    pay: tuple,
    aborted: int = 0,
    *,
    n_rounds: int = 30,
    fallbacks: tuple = (None, None),
    invalid: tuple = (None, None),
):
    """One condition row: cooperation and payoff of A and B, each (value, low, high, note);
    the fallback moves and invalid-attempt shares of A and B (None: a policy)."""

    def sql(value):
        return "null" if value is None else repr(value)

    return (
        f"select 'condition' as level, '{name}' as condition, '{a}' as agent_a_name, "
        f"'{b}' as agent_b_name, {n}::bigint as n_replicates, {aborted}::bigint as n_aborted, "
        f"{n_rounds}::bigint as n_rounds, "
        + "".join(
            f"{sql(moves)}::bigint as n_fallback_moves_{side}, "
            f"{sql(share)}::double as invalid_attempt_share_{side}, "
            f"null::double as cooperation_rate_valid_{side}, "
            for side, moves, share in zip("ab", fallbacks, invalid, strict=True)
        )
        + ", ".join(
            _side(metric, side, *values)
            for metric, pair in (("cooperation_rate", coop), ("payoff_per_round", pay))
            for side, values in zip("ab", pair, strict=True)
        )
    )


@pytest.fixture
def pd_run(tmp_path: Path) -> Path:
    """Two conditions: TFT (A) cooperates 75% [60%, 90%] against ALLD, which scores most,
    1.5 points/round [1.2, 1.8]; one condition with a single replicate and an aborted match."""
    run_dir = tmp_path / "pd-small"
    _manifest(run_dir, "pd")
    rows = [
        _condition(
            "tft_vs_alld", "TFT", "ALLD", 3,
            ((0.75, 0.6, 0.9, None), (0.0, 0.0, 0.1, "clipped to [0, 1]")),
            ((0.5, 0.4, 0.6, None), (1.5, 1.2, 1.8, None)),
        ),
        _condition(
            "grim_vs_wsls", "GRIM", "WSLS", 1,
            ((0.5, None, None, "fewer than 2 replicates"), (0.25, None, None, "fewer than 2")),
            ((1.0, None, None, "fewer than 2"), (1.25, None, None, "fewer than 2")),
            aborted=2,
        ),
    ]  # fmt: skip
    _write(run_dir / PDMart.AGGREGATES, " union all ".join(rows))
    comparisons = [
        # condition_1, condition_2, metric, n, difference, low, high, note, p_bh, verdict, few
        ("tft_vs_alld", "grim_vs_wsls", "cooperation_rate", 12, 0.25, 0.1, 0.4, None, 0.004,
         "higher", False),
        ("tft_vs_alld", "grim_vs_wsls", "payoff_per_round_b", 12, -0.5, -0.9, -0.1, None, 0.03,
         "lower", False),
        ("tft_vs_alld", "grim_vs_wsls", "mutual_cooperation_rate", 4, 0.1, None, None,
         "too few replicates", 0.4, "inconclusive", True),
    ]  # fmt: skip
    _write(
        run_dir / PDMart.COMPARISONS,
        " union all ".join(
            f"select '{c1}' as condition_1, '{c2}' as condition_2, '{m}' as metric, "
            f"{n}::bigint as n_pairs, {d}::double as mean_difference, "
            f"{'null' if lo is None else lo}::double as ci_low, "
            f"{'null' if hi is None else hi}::double as ci_high, "
            f"{'null' if note is None else repr(note)}::varchar as ci_note, "
            f"{p}::double as p_value_bh, '{v}' as verdict, {few} as is_few_data, "
            f"'{'primary' if m == 'mutual_cooperation_rate' else 'exploratory'}' as family, "
            f"{'null' if n < 6 else 0.12}::double as minimum_detectable_difference, "
            f"{6 if n < 6 else 'null'}::integer as replicates_for_interval"
            for c1, c2, m, n, d, lo, hi, note, p, v, few in comparisons
        ),
    )
    return run_dir


def test_the_pd_overview_names_who_cooperates_and_scores_most(pd_run: Path):
    findings = {f.topic: f.text for f in run_overview(pd_run).findings}
    assert findings["cooperation"] == (
        "Highest cooperation: A · TFT in tft_vs_alld, 75.0% (95% interval 60.0% to 90.0%), "
        "3 replicates. Lowest: B · ALLD in tft_vs_alld, 0.0% (95% interval 0.0% to 10.0%), "
        "3 replicates."
    )
    assert findings["score"] == (
        "Highest payoff: B · ALLD in tft_vs_alld, 1.500 points/round (95% interval 1.200 "
        "to 1.800), 3 replicates. Lowest: A · TFT in tft_vs_alld, 0.500 points/round (95% "
        "interval 0.400 to 0.600), 3 replicates."
    )


def test_the_pd_overview_says_which_differences_hold_and_why_the_rest_do_not(pd_run: Path):
    findings = {f.topic: f for f in run_overview(pd_run).findings}
    differences = findings["differences"]
    assert differences.page == "All conditions"
    # 2 of 3 rows are real: the two with BH p <= 0.05, smallest first
    assert differences.text.startswith(
        "2 of 3 differences (metrics of 1 compared pairs of conditions) hold after "
        "Benjamini-Hochberg (BH p ≤ 0.05): cooperation, both agents is higher in tft_vs_alld "
        "than in grim_vs_wsls (+25.0 pp [+10.0, +40.0] 95% interval, first minus second; "
        "BH p 0.004; 12 pairs); B's payoff per round is lower in tft_vs_alld than in "
        "grim_vs_wsls (-0.500 [-0.900, -0.100]"
    )
    inconclusive = findings["inconclusive"].text
    assert inconclusive.startswith(
        "1 of 3 differences are inconclusive: BH p > 0.05, 1 rest on fewer than 10 paired "
        "replicates, 1 have no interval (too few replicates)"
    )
    # the inconclusive primary difference of 4 pairs: below 6, no test can reject
    assert (
        "mutual cooperation, tft_vs_alld vs grim_vs_wsls (primary): no difference can be "
        "detected with 4 paired replicates (the sign-flip test cannot reach p <= 0.05); 6 would "
        "give an interval"
    ) in inconclusive
    assert "1 condition has fewer than 2 replicates, so no interval: grim_vs_wsls" in (inconclusive)
    assert "2 aborted matches are left out of every metric" in inconclusive


_STANDINGS = (
    "overall_rank, agent, mean_score_per_round, mean_score_per_round_ci_low, "
    "mean_score_per_round_ci_high, mean_score_per_round_ci_note, n_replicates, n_wins, "
    "median_rank, n_matches"
)
_PLAYERS = (
    "agent_1, agent_2, rank_1, rank_2, n_replicates, mean_difference, ci_low, ci_high, "
    "ci_note, verdict, is_adjacent"
)


def _standings(run_dir: Path, standings: str, players: str) -> None:
    """``standings``: value rows of (rank, agent, mean, low, high, note); every agent played
    4 matches in 3 replicates, all policies (no fallback share). ``players``: value rows of
    the player comparisons."""
    _write(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        "select *, 3::bigint as n_replicates, 1::bigint as n_wins, 1.0::double as median_rank, "
        "4::bigint as n_matches, null::double as agent_fallback_move_share "
        f"from (values {standings}) "
        f"t({_STANDINGS.removesuffix(', n_replicates, n_wins, median_rank, n_matches')})",
    )
    _write(
        run_dir / PDMart.TOURNAMENT_PLAYER_COMPARISONS,
        f"select * from (values {players}) t({_PLAYERS})",
    )


_THREE = (
    "(1::bigint, 'TFT', 2.5::double, 2.25::double, 2.75::double, null::varchar), "
    "(2, 'GRIM', 2.0, 1.9, 2.1, null), (3, 'ALLD', 1.0, null, null, 'every replicate gave "
    "the same value')"
)


def test_a_round_robin_opens_on_its_winner_when_its_lead_holds(pd_run: Path):
    _standings(
        pd_run,
        _THREE,
        "('TFT', 'GRIM', 1::bigint, 2::bigint, 3::bigint, 0.5::double, 0.2::double, "
        "0.8::double, null::varchar, 'first ahead', true), "
        "('TFT', 'ALLD', 1, 3, 3, 1.5, null, null, 'every replicate gave the same difference', "
        "'first ahead', false), "
        "('GRIM', 'ALLD', 2, 3, 3, 1.0, 0.9, 1.1, null, 'first ahead', true)",
    )
    assert "standings" not in {f.topic for f in run_overview(pd_run).findings}
    _manifest(pd_run, "pd", round_robin=True)
    overview = run_overview(pd_run)
    first = overview.findings[0]
    assert (first.topic, first.page) == ("standings", "Tournament")
    assert (
        overview.headline
        == first.text
        == (
            "TFT wins with 2.500 points/round (95% interval 2.250 to 2.750) over 4 matches in 3 "
            "replicates (round robin of 3 agents), ahead of every other agent in paired "
            "comparisons over replicates; ahead of #2 GRIM by +0.500 points/round (95% interval "
            "+0.200 to +0.800, 3 replicates). Next: #2 GRIM beats #3 ALLD by +1.000 points/round "
            "(95% interval +0.900 to +1.100, 3 replicates)."
        )
    )


def test_a_lead_the_paired_interval_does_not_hold_names_no_winner(pd_run: Path):
    _manifest(pd_run, "pd", round_robin=True)
    _standings(
        pd_run,
        _THREE,
        "('TFT', 'GRIM', 1::bigint, 2::bigint, 3::bigint, 0.5::double, -0.1::double, "
        "1.1::double, null::varchar, 'not separated', true), "
        "('TFT', 'ALLD', 1, 3, 3, 1.5, 1.2, 1.8, null, 'first ahead', false), "
        "('GRIM', 'ALLD', 2, 3, 1, 1.0, null, null, 'fewer than 2 paired replicates', "
        "'not separated', true)",
    )
    text = run_overview(pd_run).findings[0].text
    assert "wins" not in text
    assert text == (
        "TFT leads with 2.500 points/round (95% interval 2.250 to 2.750) over 4 matches in 3 "
        "replicates (round robin of 3 agents), but is not separated from GRIM in paired "
        "comparisons over replicates (over #2 GRIM: +0.500 points/round (95% interval -0.100 "
        "to +1.100, 3 replicates)): no single winner at this run's size. Next: #2 GRIM and "
        "#3 ALLD are not separated (+1.000 points/round (no interval: fewer than 2 paired "
        "replicates; 1 replicate))."
    )


def test_agents_of_one_score_tie_for_first_place(pd_run: Path):
    _manifest(pd_run, "pd", round_robin=True)
    _standings(
        pd_run,
        "(1::bigint, 'TFT', 3.0::double, null::double, null::double, 'every replicate gave the "
        "same value'), (1, 'GRIM', 3.0, null, null, 'every replicate gave the same value')",
        "('GRIM', 'TFT', 1::bigint, 1::bigint, 3::bigint, 0.0::double, null::double, "
        "null::double, 'every replicate gave the same difference', 'tied', true)",
    )
    assert run_overview(pd_run).headline == (
        "GRIM and TFT tie for first place at 3.000 points/round (no interval: every replicate "
        "gave the same value) each over 4 matches in 3 replicates (round robin of 2 agents)."
    )


def test_a_seat_of_mostly_fallback_moves_is_reported_and_never_ranked(tmp_path: Path):
    run_dir = tmp_path / "small-model"
    _manifest(run_dir, "pd")
    rows = [
        # 21 of 30 moves of the LLM were fallbacks: it is the least cooperative seat, unranked
        _condition(
            "llm_vs_tft", "smol", "TFT", 3,
            ((0.1, 0.0, 0.3, None), (0.6, 0.5, 0.7, None)),
            ((2.0, 1.5, 2.5, None), (1.0, 0.8, 1.2, None)),
            fallbacks=(21, None), invalid=(0.8, None),
        ),
        _condition(
            "alld_vs_tft", "ALLD", "TFT", 3,
            ((0.2, 0.1, 0.3, None), (0.9, 0.8, 1.0, None)),
            ((1.5, 1.2, 1.8, None), (0.5, 0.4, 0.6, None)),
        ),
    ]  # fmt: skip
    _write(run_dir / PDMart.AGGREGATES, " union all ".join(rows))
    findings = run_overview(run_dir).findings
    assert findings[0].topic == "validity"
    assert findings[0].text == (
        "Invalid replies and fallback moves: A · smol in llm_vs_tft: 21 of 30 moves (70.0%) "
        "were fallbacks after invalid replies, 80.0% of its attempts invalid (mostly "
        "fallbacks: not ranked as behaviour)."
    )
    cooperation = next(f.text for f in findings if f.topic == "cooperation")
    assert "smol" not in cooperation
    assert cooperation.startswith("Highest cooperation: B · TFT in alld_vs_tft")
    assert "Lowest: A · ALLD in alld_vs_tft" in cooperation
    assert cooperation.endswith(
        "Not ranked: 1 seat whose moves were mostly fallbacks after invalid replies."
    )


@pytest.fixture
def arena_run(tmp_path: Path) -> Path:
    """Three ranked players (the 2nd and 3rd share ranks 2-3), a referee, one flagged pair."""
    run_dir = tmp_path / "arena-small"
    _manifest(run_dir, "arena")
    _write(
        run_dir / ArenaMart.LEADERBOARD,
        "select *, 3::bigint as n_questions, 10 as min_questions, true as is_few_questions, "
        "2.689::double as interval_expansion from (values "
        "(1::bigint, 'atlas', 'player', 8.0::double, 7.5::double, 8.5::double, 1::bigint, "
        "1::bigint, true, 30::bigint, 3::bigint, 7::bigint), "
        "(2, 'borealis', 'player', 6.0, 5.0, 7.0, 2, 3, true, 30, 3, 1), "
        "(3, 'cirrus', 'player', 5.5, 4.5, 6.5, 2, 3, true, 30, 3, null), "
        "(null, 'ref', 'judge', null, null, null, null, null, false, 0, 3, null)) "
        "t(rank, player, role, score, ci_low, ci_high, rank_ci_low, rank_ci_high, "
        "has_enough_data, n_judgments, min_judgments, n_to_flip_next)",
    )
    _write(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        "select * from (values ('ref', 'cirrus', 'favouritism', 1.25::double, 0.01::double, "
        "9::bigint, true, 1::bigint), ('atlas', 'cirrus', null, 0.1, 0.9, 9, false, 2)) "
        "t(judge, player, flag_kind, relative_deviation, q_value, n_answers, is_flagged, "
        "anomaly_rank)",
    )
    return run_dir


def test_the_arena_overview_gives_the_top_its_intervals_and_the_open_ranks(arena_run: Path):
    findings = {f.topic: f.text for f in run_overview(arena_run).findings}
    assert findings["leaderboard"] == (
        "Leaderboard of 3 ranked players (mean normalised score of their answers, 0 to 10): "
        "1. atlas, 8.000 points (95% interval 7.500 to 8.500), rank 1 at 95%, 30 valid "
        "judgements; 2. borealis, 6.000 points (95% interval 5.000 to 7.000), rank 2 to 3 at "
        "95%, 30 valid judgements; 3. cirrus, 5.500 points (95% interval 4.500 to 6.500), rank "
        "2 to 3 at 95%, 30 valid judgements. The leader's place rests on 7 valid judgements: "
        "removing them puts borealis above atlas (the other judgements' normalised scores held)."
    )
    assert findings["few_questions"] == (
        "Few questions: the leaderboard's 95% intervals and rank intervals rest on 3 kept "
        "questions, fewer than the 10 from which their coverage was measured; each arm is "
        "already stretched x2.69 for their number; they may hold the truth less often than 95% "
        "(docs/arena_ratings.md#few-questions)."
    )
    assert findings["inconclusive"] == (
        "Ranks not settled at 95%: borealis (rank 2 to 3 at 95%), cirrus (rank 2 to 3 at 95%) "
        "(their score intervals overlap a neighbour's)."
    )
    assert findings["judges"] == (
        "1 flagged judge x player pair: ref on cirrus (favouritism, 1.250 points from the "
        "other judges on 9 answers, q 0.010)."
    )
    assert "agreement" not in findings  # no pairwise verdicts in this run


def test_a_missing_value_is_a_dash_and_a_folder_lists_its_runs(pd_run: Path, arena_run: Path):
    listing = {run.run_id: run for run in folder_overview(pd_run.parent)}
    assert set(listing) == {"pd-small", "arena-small"}
    assert listing["arena-small"].headline.startswith("Leaderboard of 3 ranked players")
    assert listing["pd-small"].headline.startswith("Highest cooperation: A · TFT")
    (pd_run / PDMart.AGGREGATES).write_bytes(b"PAR1 damaged PAR1")
    listing = {run.run_id: run for run in folder_overview(pd_run.parent)}
    assert listing["pd-small"].headline.startswith("not readable: ")


def test_two_runs_with_one_run_id_are_listed_with_their_folders(
    pd_run: Path, arena_run: Path, tmp_path: Path
):
    from pdbench.report import render_run_list

    runs = tmp_path / "runs"
    for folder in ("copy-a", "copy-b"):
        shutil.copytree(pd_run, runs / folder)
    shutil.copytree(arena_run, runs / "arena")
    names = sorted(run.name for run in folder_overview(runs))
    assert names == ["arena-small", "pd-small (copy-a)", "pd-small (copy-b)"]
    page = render_run_list(runs)
    assert "<tr><td>pd-small (copy-a)</td>" in page
    assert "<tr><td>arena-small</td>" in page


def test_many_unreadable_judgements_are_said_before_the_ranks(arena_run: Path):
    # 74 of 100 judgements unreadable (ref 40 of 50, atlas 34 of 50); calls: judge 60 and 40
    # attempts at 80% and 50% invalid -> (48 + 20) / 100 = 68.0%; answer 10 attempts, 0%
    _write(
        arena_run / ArenaMart.JUDGE_STATS,
        "select * from (values ('ref', 50::bigint, 40::bigint, 0.8::double), "
        "('atlas', 50, 34, 0.68)) t(judge, n_judgments, n_invalid, invalid_rate)",
    )
    _write(
        arena_run / ArenaMart.CALLS_SUMMARY,
        "select * from (values ('ref', 'judge', 60::bigint, 0.8::double), "
        "('atlas', 'judge', 40, 0.5), ('atlas', 'answer', 10, 0.0)) "
        "t(player, phase, n_calls, invalid_attempt_share)",
    )
    findings = run_overview(arena_run).findings
    assert findings[0].topic == "validity"
    assert findings[0].text == (
        "Unreadable replies: 74 of 100 judgements (74.0%) could not be read, so the scores "
        "rest on the other 26 (by judge, most first: ref 40 of 50, atlas 34 of 50); invalid "
        "attempts by phase: judge 68.0% of 100 attempts."
    )
    assert findings[1].topic == "leaderboard"


def test_a_few_unreadable_judgements_follow_the_ranks(arena_run: Path):
    _write(
        arena_run / ArenaMart.JUDGE_STATS,
        "select * from (values ('ref', 50::bigint, 2::bigint, 0.04::double)) "
        "t(judge, n_judgments, n_invalid, invalid_rate)",
    )
    topics = [f.topic for f in run_overview(arena_run).findings]
    assert topics.index("leaderboard") < topics.index("validity")


def _bradley_terry(run_dir: Path, rank_high: int) -> None:
    _write(
        run_dir / ArenaMart.BRADLEY_TERRY,
        "select *, 100::bigint as n_questions, 10 as min_questions, false as is_few_questions, "
        "1.01::double as interval_expansion from (values "
        f"(1::bigint, 'qwen-110b', 1150.265::double, 1020.4::double, 1290.6::double, 1::bigint, "
        f"{rank_high}::bigint, false, null::varchar, true, 0.0::double, 12::bigint, false), "
        "(2, 'qwen-32b', 1000.0, 900.0, 1100.0, 1, 4, false, null, true, 0.0, null, null)) "
        "t(rank, player, elo, elo_ci_low, elo_ci_high, rank_ci_low, rank_ci_high, "
        "is_separated, elo_note, is_converged, bt_last_change, n_to_flip_next, "
        "is_flip_count_exact)",
    )


def test_pairwise_verdicts_name_a_first_place_only_where_its_rank_interval_holds_it(
    tmp_path: Path,
):
    run_dir = tmp_path / "pairwise"
    _manifest(run_dir, "arena")
    _bradley_terry(run_dir, rank_high=4)
    findings = run_overview(run_dir).findings
    # no judge test ran: nothing is said of flagged judges
    assert [f.topic for f in findings] == ["agreement"]
    assert findings[0].text == (
        "Pairwise verdicts (Bradley-Terry): qwen-110b has the highest strength, 1150 Elo (95% "
        "interval 1020 to 1291), but rank 1 to 4 at 95%: first place is not settled; every "
        "player's rank interval spans 4 places. qwen-110b's place rests on at most 12 verdicts: "
        "removing them and refitting puts qwen-32b above it."
    )
    _bradley_terry(run_dir, rank_high=1)
    assert run_overview(run_dir).findings[0].text == (
        "Pairwise verdicts (Bradley-Terry): qwen-110b comes first (rank 1 at 95%): 1150 Elo "
        "(95% interval 1020 to 1291). qwen-110b's place rests on at most 12 verdicts: removing "
        "them and refitting puts qwen-32b above it."
    )


def test_no_judge_is_flagged_only_where_the_judge_test_ran(arena_run: Path):
    _write(
        arena_run / ArenaMart.JUDGE_PLAYER_BIAS,
        "select * from (values ('atlas', 'cirrus', null::varchar, 0.1::double, 0.9::double, "
        "9::bigint, false, 1::bigint)) t(judge, player, flag_kind, relative_deviation, "
        "q_value, n_answers, is_flagged, anomaly_rank)",
    )
    judges = [f.text for f in run_overview(arena_run).findings if f.topic == "judges"]
    assert judges == [
        "No judge is flagged: no judge x player bias passes the permutation test after "
        "Benjamini-Hochberg."
    ]
    (arena_run / ArenaMart.JUDGE_PLAYER_BIAS).unlink()
    assert "judges" not in {f.topic for f in run_overview(arena_run).findings}


def test_an_imported_study_opens_on_the_model_it_studies(pd_run: Path):
    conditions = [
        {"name": name, "agent_a": {"type": "imported", "name": a, "kind": kind},
         "agent_b": {"type": "imported", "name": b, "kind": "policy"}}
        for name, a, b, kind in (("tft_vs_alld", "TFT", "ALLD", "llm"),
                                 ("grim_vs_wsls", "GRIM", "WSLS", "policy"))
    ]  # fmt: skip
    manifest = {"run_id": "akata", "game": "pd", "status": "completed", "source": "imported",
                "config": {"round_robin": None, "conditions": conditions}}  # fmt: skip
    (pd_run / "run_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    first = run_overview(pd_run).findings[0]
    assert (first.topic, first.page) == ("model", "All conditions")
    assert first.text == (
        "The model this imported study studies, TFT: in tft_vs_alld (seat A, against ALLD, 3 "
        "replicates) it cooperates 75.0% (95% interval 60.0% to 90.0%) and scores 0.500 "
        "points/round (95% interval 0.400 to 0.600)."
    )


def test_a_persona_study_opens_on_its_conditions_differences(pd_run: Path):
    manifest = {
        "run_id": "personas", "game": "pd", "status": "completed",
        "config": {"round_robin": None, "conditions": [
            {"name": "tft_vs_alld", "agent_a": {"type": "llm", "persona": "tit_for_tat"},
             "agent_b": {"type": "policy", "policy": "ALLD"}},
        ]},
    }  # fmt: skip
    (pd_run / "run_manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    topics = [f.topic for f in run_overview(pd_run).findings]
    assert topics == ["differences", "cooperation", "score", "inconclusive"]


def test_the_seats_with_the_most_fallback_moves_come_first(tmp_path: Path):
    run_dir = tmp_path / "two-llms"
    _manifest(run_dir, "pd")
    coop = ((0.5, 0.4, 0.6, None), (0.5, 0.4, 0.6, None))
    pay = ((2.0, 1.5, 2.5, None), (2.0, 1.5, 2.5, None))
    rows = [
        # 3 of 30 moves (10.0%), then 12 of 30 (40.0%): the second is named first
        _condition("a_first", "llm1", "TFT", 3, coop, pay, fallbacks=(3, None),
                   invalid=(0.125, None)),
        _condition("b_second", "TFT", "llm2", 3, coop, pay, fallbacks=(None, 12),
                   invalid=(None, 0.5)),
    ]  # fmt: skip
    _write(run_dir / PDMart.AGGREGATES, " union all ".join(rows))
    (validity,) = [f.text for f in run_overview(run_dir).findings if f.topic == "validity"]
    assert validity == (
        "Invalid replies and fallback moves: B · llm2 in b_second: 12 of 30 moves (40.0%) were "
        "fallbacks after invalid replies, 50.0% of its attempts invalid; A · llm1 in a_first: "
        "3 of 30 moves (10.0%) were fallbacks after invalid replies, 12.5% of its attempts "
        "invalid."
    )
