{{ config(location=mart_location()) }}

with judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

consensus as (
    select * from {{ ref('int_arena_judgment_consensus') }}
),

agreement as (
    select * from {{ ref('int_arena_judge_agreement') }}
),

ratings as (
    select * from {{ ref('int_arena_ratings_normalized') }}
),

judgments_per_judge as (
    select
        judge,
        count(*) as n_judgments,
        count(*) filter (where is_valid) as n_valid,
        count(*) filter (where not is_valid) as n_invalid,
        count(*) filter (where not is_valid) / count(*) as invalid_rate,
        count(*) filter (where n_attempts > 1) / count(*) as retry_rate,
        count(*) filter (where score = 10) / nullif(count(score), 0) as top_score_rate,
        avg(score) as leniency,
        stddev_samp(score) as spread,
        avg(normalized_score) as normalized_mean,
        stddev_samp(normalized_score) as normalized_spread,
        max(judge_offset) as fixed_effects_offset,
        max(normalization) as normalization
    from judgments
    group by judge
),

consensus_per_judge as (
    select
        judge,
        count(*) filter (where others_mean_score is not null) as n_consensus_answers,
        -- undefined (NULL, not DuckDB's NaN) with fewer than two answers or no spread
        case
            when
                var_pop(debiased_score) filter (where others_mean_score is not null) > 0
                and var_pop(others_mean_score) filter (where debiased_score is not null) > 0
                then corr(debiased_score, others_mean_score)
        end as consensus_correlation,
        avg(deviation) as mean_deviation,
        avg(abs(deviation)) as mean_abs_deviation
    from consensus
    group by judge
),

ratings_per_rater as (
    select
        rater as judge,
        count(*) as n_question_ratings,
        avg(score) as rating_leniency,
        count(*) filter (where not is_valid) / count(*) as rating_invalid_rate
    from ratings
    group by rater
),

players as (
    select * from {{ ref('stg_arena_players') }}
),

final as (
    select
        judgments_per_judge.judge,
        players.role,
        judgments_per_judge.n_judgments,
        judgments_per_judge.n_valid,
        judgments_per_judge.n_invalid,
        judgments_per_judge.invalid_rate,
        judgments_per_judge.retry_rate,
        judgments_per_judge.top_score_rate,
        judgments_per_judge.leniency,
        judgments_per_judge.spread,
        judgments_per_judge.normalized_mean,
        judgments_per_judge.normalized_spread,
        judgments_per_judge.fixed_effects_offset,
        consensus_per_judge.n_consensus_answers,
        consensus_per_judge.consensus_correlation,
        consensus_per_judge.mean_deviation,
        consensus_per_judge.mean_abs_deviation,
        ratings_per_rater.n_question_ratings,
        ratings_per_rater.rating_leniency,
        ratings_per_rater.rating_invalid_rate,
        agreement.krippendorff_alpha_raw,
        agreement.krippendorff_alpha_normalized,
        agreement.krippendorff_alpha_note,
        judgments_per_judge.normalization
    from judgments_per_judge
    cross join agreement
    left join consensus_per_judge
        on judgments_per_judge.judge = consensus_per_judge.judge
    left join ratings_per_rater
        on judgments_per_judge.judge = ratings_per_rater.judge
    left join players
        on judgments_per_judge.judge = players.player
)

select * from final
order by judge
