-- Every answer the judges judged (valid, not void), with its votes: the audience's mean
-- and a 95% t interval over the votes (cut to 0..10, flagged), next to the models' score
-- of the same answer.
with answers as (
    select * from {{ ref('int_arena_answer_scores') }}
    where is_answer_valid
),

votes as (
    select * from {{ ref('stg_arena_audience_votes') }}
),

votes_per_answer as (
    select
        answer_id,
        count(*) as n_votes,
        count(distinct voter) as n_voters,
        avg(score) as audience_score,
        stddev_samp(score) as audience_stddev
    from votes
    group by answer_id
),

joined as (
    select
        answers.answer_id,
        answers.question_id,
        answers.answerer,
        answers.is_scored,
        answers.score as model_score,
        answers.raw_score as model_raw_score,
        votes_per_answer.audience_score,
        votes_per_answer.audience_stddev,
        coalesce(votes_per_answer.n_votes, 0) as n_votes,
        coalesce(votes_per_answer.n_voters, 0) as n_voters
    from answers
    left join votes_per_answer
        on answers.answer_id = votes_per_answer.answer_id
),

intervals as (
    select
        *,
        t_quantile_975(n_votes - 1) * audience_stddev / sqrt(n_votes) as half_width
    from joined
),

-- votes are 0..10, so the interval is cut to 0..10 and says so: with few votes a t
-- interval easily reaches past the scale
final as (
    select
        * exclude (half_width),
        -- DuckDB's greatest and least skip NULLs: no interval must stay NULL
        case when half_width is not null then greatest(audience_score - half_width, 0) end
            as audience_ci_low,
        case when half_width is not null then least(audience_score + half_width, 10) end
            as audience_ci_high,
        audience_score - half_width < 0 or audience_score + half_width > 10
            as is_audience_ci_clipped,
        n_votes < {{ arena_few_data_n() }} as is_few_data
    from intervals
)

select * from final
