{{ config(location=mart_location()) }}

-- A player's public score is the mean, over their answers with at least one vote, of the
-- audience's mean score of the answer (as the models' score is a mean over answers), with
-- a 95% t interval over those answers, cut to the votes' 0..10 scale and flagged when cut.
with answer_scores as (
    select * from {{ ref('int_arena_audience_answer_scores') }}
),

agreement as (
    select * from {{ ref('int_arena_audience_agreement') }}
),

leaderboard as (
    select * from {{ ref('arena_leaderboard') }}
),

players as (
    select
        answerer as player,
        count(*) filter (where n_votes > 0) as n_answers_voted,
        sum(n_votes)::bigint as n_votes,
        avg(audience_score) as audience_score,
        stddev_samp(audience_score) as audience_stddev
    from answer_scores
    group by answerer
),

intervals as (
    select
        *,
        t_quantile_975(n_answers_voted - 1) * audience_stddev / sqrt(n_answers_voted)
            as half_width
    from players
),

final as (
    select
        intervals.player,
        intervals.n_answers_voted,
        intervals.n_votes,
        intervals.audience_score,
        -- DuckDB's greatest and least skip NULLs: no interval must stay NULL
        case
            when intervals.half_width is not null
                then greatest(intervals.audience_score - intervals.half_width, 0)
        end as audience_ci_low,
        case
            when intervals.half_width is not null
                then least(intervals.audience_score + intervals.half_width, 10)
        end as audience_ci_high,
        intervals.audience_score - intervals.half_width < 0
        or intervals.audience_score + intervals.half_width > 10 as is_audience_ci_clipped,
        intervals.n_answers_voted < {{ arena_few_data_n() }} as is_few_data,
        case
            when intervals.audience_score is not null
                then rank() over (order by intervals.audience_score desc nulls last)
        end as audience_rank,
        leaderboard.score as model_score,
        leaderboard.ci_low as model_ci_low,
        leaderboard.ci_high as model_ci_high,
        leaderboard.rank as model_rank,
        agreement.agreement_pearson,
        agreement.agreement_spearman,
        agreement.n_answers_compared,
        agreement.agreement_is_few_data,
        agreement.agreement_null_reason
    from intervals
    cross join agreement
    left join leaderboard
        on intervals.player = leaderboard.player
    order by audience_rank asc nulls last, intervals.player asc
)

select * from final
