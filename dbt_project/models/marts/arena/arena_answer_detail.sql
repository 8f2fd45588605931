{{ config(location=mart_location()) }}

with

answers as (
    select * from {{ ref('stg_arena_answers') }}
),

answer_scores as (
    select * from {{ ref('int_arena_answer_scores') }}
),

answer_detail as (
    select
        answers.answer_id,
        answers.question_id,
        answers.answerer,
        answer_scores.question_author,
        answer_scores.category,
        answers.answer_text,
        answers.is_valid,
        answers.is_truncated,
        answers.n_attempts,
        answer_scores.is_scored,
        answer_scores.n_judges,
        answer_scores.n_judgments_invalid,
        answer_scores.score,
        answer_scores.score_stddev,
        answer_scores.raw_score
    from answers
    inner join answer_scores
        on answers.answer_id = answer_scores.answer_id
)

select * from answer_detail
order by question_id, answerer
