{{ config(location=mart_location()) }}

with answer_scores as (
    select * from {{ ref('int_arena_audience_answer_scores') }}
),

final as (
    select
        answer_id,
        question_id,
        answerer,
        n_votes,
        n_voters,
        audience_score,
        audience_ci_low,
        audience_ci_high,
        is_audience_ci_clipped,
        is_few_data,
        audience_stddev,
        model_score,
        model_raw_score,
        is_scored
    from answer_scores
    order by answer_id
)

select * from final
