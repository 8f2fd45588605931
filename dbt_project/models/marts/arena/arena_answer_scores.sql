{{ config(location=mart_location()) }}

with answer_scores as (
    select * from {{ ref('int_arena_answer_scores') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

final as (
    select
        answer_scores.answer_id,
        answer_scores.question_id,
        answer_scores.answerer,
        answer_scores.question_author,
        answer_scores.category,
        answer_scores.is_own_question,
        answer_scores.is_answer_valid,
        answer_scores.is_answer_truncated,
        answer_scores.is_question_kept,
        answer_scores.is_scored,
        answer_scores.quality_weight,
        answer_scores.n_judges,
        answer_scores.n_judgments_invalid,
        answer_scores.raw_score,
        answer_scores.score,
        answer_scores.score_stddev,
        scoring.normalization
    from answer_scores
    cross join scoring
)

select * from final
order by answer_id
