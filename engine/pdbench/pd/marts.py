"""The marts of a PD run (``dbt_project/models/marts/pd``), each with how a reader takes its
rows (:class:`pdbench.storage.marts.MartFile`): the PD's mart catalogue, handed to the core
through :class:`pdbench.game.Game`."""

from __future__ import annotations

from pdbench.storage.marts import MartFile

__all__ = ["PDMart"]


class PDMart(MartFile):
    """The marts of a PD run (``dbt_project/models/marts/pd``)."""

    AGGREGATES = "aggregates.parquet", "level", "level, condition, replicate"
    COMPARISONS = "comparisons.parquet", "condition_1", "condition_1, condition_2, metric"
    AGENT_METRICS = "agent_metrics.parquet", "level", "level, condition, replicate, side"
    MEMORY_ONE = "memory_one.parquet", "level", "level, condition, replicate, side, previous_round"
    FINGERPRINTS = "fingerprints.parquet", "agent_name", "agent_name, probe_x, probe_y, condition"
    STRATEGY_FIT = (
        "strategy_fit.parquet",
        "agent_name",
        "level, agent_name, condition, side, fit_rank, reference",
    )
    STATED_VS_PLAYED = (
        "stated_vs_played.parquet",
        "agent_name",
        "agent_name, condition, state",
    )
    STRATEGY_SHARES = "strategy_shares.parquet", "agent_name", "agent_name, share desc, strategy"
    COOPERATION_OVER_TIME = (
        "cooperation_over_time.parquet",
        "level",
        "condition, replicate nulls first, round_index",
    )
    AGENT_COOPERATION_OVER_TIME = (
        "agent_cooperation_over_time.parquet",
        "condition",
        "condition, side, round_index",
    )
    MATCH_LIST = "match_list.parquet", "match_id", "condition, replicate"
    CALLS_SUMMARY = "calls_summary.parquet", "level", "level = 'agent', condition, agent"
    PARSE_RULES = "parse_rules.parquet"
    TOURNAMENT_MATCH_SCORES = (
        "tournament_match_scores.parquet",
        "agent",
        "agent, condition, replicate, side",
    )
    TOURNAMENT_STANDINGS = "tournament_standings.parquet", "agent", "overall_rank, agent"
    TOURNAMENT_PLAYER_COMPARISONS = (
        "tournament_player_comparisons.parquet",
        "agent_1",
        "rank_1, agent_1, rank_2, agent_2",
    )
    TOURNAMENT_PAYOFF_MATRIX = "tournament_payoff_matrix.parquet", "agent", "agent, opponent"
    TOURNAMENT_NOISE_RESPONSES = (
        "tournament_noise_responses.parquet",
        "agent",
        "agent, flipped_side, flipped_to",
    )
    TOURNAMENT_ECOSYSTEM = "tournament_ecosystem.parquet", "agent", "generation, agent"
    TOURNAMENT_FIXATION = "tournament_fixation.parquet", "mutant", "mutant, resident"
    TOURNAMENT_MORAN_SIMULATIONS = (
        "tournament_moran_simulations.parquet",
        "mutant",
        "mutant, resident",
    )
    ROUNDS = "rounds.parquet"
    """The rounds of every match as the viewer draws them, sorted by match (``pd_rounds``):
    a copy of part of ``rounds.jsonl`` that the viewer reads one match of at a time. A run
    aggregated before it existed has none, and the viewer reads ``rounds.jsonl`` instead."""
