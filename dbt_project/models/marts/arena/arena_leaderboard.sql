{{ config(location=mart_location()) }}

with player_scores as (
    select * from {{ ref('int_arena_player_scores') }}
),

bootstrap_scores as (
    select * from {{ ref('int_arena_bootstrap_player_scores') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

expansion as (
    select * from {{ ref('int_arena_interval_expansion') }}
),

fragility as (
    select * from {{ ref('int_arena_leaderboard_fragility') }}
),

-- the score with the answers' style held: the joint model's quality (the judges' leniency,
-- arms and the answers' style fitted with it) put on the score's scale, the mean score of the
-- players it fits plus the player's quality against their mean (docs/arena_ratings.md)
joint_quality as (
    select
        effect_name as player,
        joint_effect,
        joint_effect_ci_low,
        joint_effect_ci_high
    from {{ ref('int_arena_joint_effects') }}
    where effect_kind = 'quality'
),

quality_anchor as (
    select avg(player_scores.score) as mean_score
    from player_scores
    inner join joint_quality
        on player_scores.player = joint_quality.player
),

-- Percentile intervals: linear interpolation between order statistics for the score,
-- the nearest order statistic for the (integer) rank.
percentiles as (
    select
        player,
        {{ arena_bootstrap_percentiles('score') }}
    from bootstrap_scores
    group by player
),

-- each arm stretched for the number of questions (int_arena_interval_expansion)
bootstrap_intervals as (
    select
        percentiles.player,
        percentiles.rank_ci_low,
        percentiles.rank_ci_high,
        percentiles.n_replicates,
        player_scores.score
        - expansion.arm_factor * (player_scores.score - percentiles.score_q025) as ci_low,
        player_scores.score
        + expansion.arm_factor * (percentiles.score_q975 - player_scores.score) as ci_high
    from percentiles
    inner join player_scores
        on percentiles.player = player_scores.player
    cross join expansion
),

final as (
    select
        player_scores.player,
        player_scores.role,
        player_scores.score,
        player_scores.rank,
        player_scores.status,
        player_scores.has_enough_data,
        player_scores.n_judgments,
        player_scores.min_judgments,
        bootstrap_intervals.ci_low,
        bootstrap_intervals.ci_high,
        bootstrap_intervals.rank_ci_low,
        bootstrap_intervals.rank_ci_high,
        round(quality_anchor.mean_score + joint_quality.joint_effect, 12)
            as score_style_controlled,
        round(quality_anchor.mean_score + joint_quality.joint_effect_ci_low, 12)
            as score_style_controlled_ci_low,
        round(quality_anchor.mean_score + joint_quality.joint_effect_ci_high, 12)
            as score_style_controlled_ci_high,
        fragility.n_to_flip_next,
        player_scores.n_answers,
        player_scores.n_answers_invalid,
        player_scores.n_answers_unjudged,
        player_scores.n_answers_truncated,
        player_scores.score_others_questions,
        player_scores.n_answers_others_questions,
        player_scores.weighted_score,
        player_scores.raw_score,
        scoring.normalization,
        scoring.bootstrap_n,
        scoring.bootstrap_seed,
        expansion.arm_factor as interval_expansion,
        expansion.n_kept as n_questions,
        {{ arena_few_questions_n() }} as min_questions,
        expansion.n_kept < {{ arena_few_questions_n() }} as is_few_questions,
        coalesce(bootstrap_intervals.n_replicates, 0) as n_replicates
    from player_scores
    cross join scoring
    cross join expansion
    left join bootstrap_intervals
        on player_scores.player = bootstrap_intervals.player
    left join fragility
        on player_scores.player = fragility.player
    left join joint_quality
        on player_scores.player = joint_quality.player
    cross join quality_anchor
    order by player_scores.rank asc nulls last, player_scores.player asc
)

select * from final
