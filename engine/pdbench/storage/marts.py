"""The Parquet marts dbt writes into a run directory: every file named once, here.

A mart's file is its dbt model's name without the game prefix (``pd_`` or ``arena_``), with
``.parquet`` (``mart_location`` in ``dbt_project/macros/run_dir.sql``): the model
``pd_aggregates`` writes ``aggregates.parquet``, ``arena_calls_summary`` writes
``calls_summary.parquet``, ``leaderboard`` writes ``leaderboard.parquet``. A PD run and an
arena run are separate directories, so the same file name means the same kind of table in
either game.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ArenaMart", "PDMart", "SeriesMart"]


class PDMart(StrEnum):
    """The marts of a PD run (``dbt_project/models/marts/pd``)."""

    AGGREGATES = "aggregates.parquet"
    COMPARISONS = "comparisons.parquet"
    AGENT_METRICS = "agent_metrics.parquet"
    MEMORY_ONE = "memory_one.parquet"
    FINGERPRINTS = "fingerprints.parquet"
    STRATEGY_FIT = "strategy_fit.parquet"
    COOPERATION_OVER_TIME = "cooperation_over_time.parquet"
    AGENT_COOPERATION_OVER_TIME = "agent_cooperation_over_time.parquet"
    MATCH_LIST = "match_list.parquet"
    CALLS_SUMMARY = "calls_summary.parquet"
    PARSE_RULES = "parse_rules.parquet"
    TOURNAMENT_MATCH_SCORES = "tournament_match_scores.parquet"
    TOURNAMENT_STANDINGS = "tournament_standings.parquet"
    TOURNAMENT_PAYOFF_MATRIX = "tournament_payoff_matrix.parquet"
    TOURNAMENT_NOISE_RESPONSES = "tournament_noise_responses.parquet"
    TOURNAMENT_ECOSYSTEM = "tournament_ecosystem.parquet"
    TOURNAMENT_FIXATION = "tournament_fixation.parquet"
    TOURNAMENT_MORAN_SIMULATIONS = "tournament_moran_simulations.parquet"
    ROUNDS = "rounds.parquet"
    """The rounds of every match as the viewer draws them, sorted by match (``pd_rounds``):
    a copy of part of ``rounds.jsonl`` that the viewer reads one match of at a time. A run
    aggregated before it existed has none, and the viewer reads ``rounds.jsonl`` instead."""


class ArenaMart(StrEnum):
    """The marts of an arena run (``dbt_project/models/marts/arena``)."""

    LEADERBOARD = "leaderboard.parquet"
    ANSWER_SCORES = "answer_scores.parquet"
    ANSWER_DETAIL = "answer_detail.parquet"
    JUDGMENT_DETAIL = "judgment_detail.parquet"
    RATING_DETAIL = "rating_detail.parquet"
    QUESTION_QUALITY = "question_quality.parquet"
    QUESTION_STATS = "question_stats.parquet"
    JUDGE_STATS = "judge_stats.parquet"
    JUDGE_PLAYER_BIAS = "judge_player_bias.parquet"
    IDENTITY_LEAKS = "identity_leaks.parquet"
    JUDGE_RATIONALES = "judge_rationales.parquet"
    BUDGET_CURVES = "budget_curves.parquet"
    CALIBRATION = "calibration.parquet"
    SELF_ASSESSMENT_DETAIL = "self_assessment_detail.parquet"
    ROBUSTNESS = "robustness.parquet"
    TRICK_OUTCOMES = "trick_outcomes.parquet"
    TRICK_AUTHORS = "trick_authors.parquet"
    DIVERSITY = "diversity.parquet"
    NEAR_DUPLICATES = "near_duplicates.parquet"
    CALLS_SUMMARY = "calls_summary.parquet"
    PARSE_RULES = "parse_rules.parquet"
    AUDIENCE_ANSWER_SCORES = "audience_answer_scores.parquet"
    AUDIENCE_SCORES = "audience_scores.parquet"
    BRADLEY_TERRY = "bradley_terry.parquet"
    PAIRWISE_POSITION = "pairwise_position.parquet"
    PAIRWISE_SELF_BIAS = "pairwise_self_bias.parquet"
    PAIRWISE_NAME_BIAS = "pairwise_name_bias.parquet"
    SCORE_AGREEMENT = "score_agreement.parquet"
    SCORE_ARMS = "score_arms.parquet"


class SeriesMart(StrEnum):
    """The marts of a series of arena tournaments (``dbt_project/models/marts/series``), written
    by ``pdbench leaderboard`` into its output folder."""

    PROGRESSION = "series_progression.parquet"
    PLAYERS = "series_players.parquet"
