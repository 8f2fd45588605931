"""The marts of an arena run (``dbt_project/models/marts/arena``) and of a series of arena
tournaments (``dbt_project/models/marts/series``), each with how a reader takes its rows
(:class:`pdbench.storage.marts.MartFile`): the arena's mart catalogue, handed to the core
through :class:`pdbench.game.Game`."""

from __future__ import annotations

from pdbench.storage.marts import MartFile

__all__ = ["ArenaMart", "SeriesMart"]


class ArenaMart(MartFile):
    """The marts of an arena run (``dbt_project/models/marts/arena``)."""

    LEADERBOARD = "leaderboard.parquet", "player", "rank, player"
    ANSWER_SCORES = "answer_scores.parquet"
    ANSWER_DETAIL = (
        "answer_detail.parquet",
        "question_id",
        "question_id, score desc nulls last, answerer",
    )
    JUDGMENT_DETAIL = "judgment_detail.parquet", "question_id", "answer_id, judge"
    RATING_DETAIL = "rating_detail.parquet", "question_id", "question_id, rater"
    QUESTION_QUALITY = "question_quality.parquet"
    QUESTION_STATS = (
        "question_stats.parquet",
        "question_id",
        "is_kept desc, quality desc nulls last, question_id",
    )
    JUDGE_STATS = "judge_stats.parquet", "judge", "judge"
    JUDGE_PLAYER_BIAS = "judge_player_bias.parquet", "judge", "anomaly_rank, judge, player"
    IDENTITY_LEAKS = "identity_leaks.parquet", "player", "player"
    JUDGE_RATIONALES = "judge_rationales.parquet", "judge", "judge"
    BUDGET_CURVES = "budget_curves.parquet", "player", "family_name, answer_tokens, player"
    CALIBRATION = "calibration.parquet", "player", "player"
    SELF_ASSESSMENT_DETAIL = "self_assessment_detail.parquet", "answer_id", "player, answer_id"
    ROBUSTNESS = "robustness.parquet", "answerer", "answerer"
    TRICK_OUTCOMES = "trick_outcomes.parquet", "question_id", "author, question_id"
    TRICK_AUTHORS = "trick_authors.parquet", "author", "share_fell desc nulls last, author"
    DIVERSITY = "diversity.parquet", "player", "diversity_score nulls last, player"
    NEAR_DUPLICATES = (
        "near_duplicates.parquet",
        "question_id_a",
        "similarity desc, question_id_a, question_id_b",
    )
    CALLS_SUMMARY = "calls_summary.parquet", "player", "player, phase"
    PARSE_RULES = "parse_rules.parquet"
    AUDIENCE_ANSWER_SCORES = "audience_answer_scores.parquet"
    AUDIENCE_SCORES = "audience_scores.parquet", "player", "audience_rank nulls last, player"
    BRADLEY_TERRY = "bradley_terry.parquet", "player", "rank, player"
    PAIRWISE_POSITION = "pairwise_position.parquet", "judge", "is_all_judges desc, judge"
    PAIRWISE_SELF_BIAS = "pairwise_self_bias.parquet", "judge", "is_all_judges desc, judge"
    PAIRWISE_NAME_BIAS = "pairwise_name_bias.parquet", "judge", "is_all_judges desc, judge, player"
    PAIRWISE_STYLE = "pairwise_style.parquet", "feature", "feature"
    SCORE_AGREEMENT = "score_agreement.parquet", "n_players", "n_players"
    SCORE_ARMS = "score_arms.parquet", "judge", "judge, arm"
    JOINT_MODEL = (
        "joint_model.parquet",
        "effect_kind",
        "judging, list_position(['quality', 'leniency', 'named', 'fixed_order', 'style'], "
        "effect_kind), "
        "joint_effect desc nulls last, effect_name",
    )


class SeriesMart(MartFile):
    """The marts of a series of arena tournaments (``dbt_project/models/marts/series``), written
    by ``pdbench leaderboard`` into its output folder."""

    PROGRESSION = "series_progression.parquet"
    PLAYERS = "series_players.parquet"
