-- a void answer (identity_leaks: void) was never judged and is not scored
with answers as (
    select * from {{ ref('stg_arena_answers') }}
    where is_void is not true
),

judgments as (
    select * from {{ ref('int_arena_judgments_normalized') }}
),

questions as (
    select * from {{ ref('int_arena_question_quality') }}
),

{{ arena_scores_per_item('judgments_per_answer', 'judgments', 'answer_id', {
    'n_valid': 'n_judges', 'n_invalid': 'n_judgments_invalid',
    'raw_mean': 'raw_score', 'mean': 'score', 'stddev': 'score_stddev'}) }},

answers_with_scores as (
    select
        answers.answer_id,
        answers.question_id,
        answers.answerer,
        questions.author as question_author,
        questions.category,
        answers.is_valid as is_answer_valid,
        answers.is_truncated as is_answer_truncated,
        judgments_per_answer.raw_score,
        judgments_per_answer.score,
        judgments_per_answer.score_stddev,
        answers.answerer = questions.author as is_own_question,
        coalesce(questions.is_kept, false) as is_question_kept,
        coalesce(questions.quality_weight, 0.0) as quality_weight,
        coalesce(judgments_per_answer.n_judges, 0) as n_judges,
        coalesce(judgments_per_answer.n_judgments_invalid, 0) as n_judgments_invalid
    from answers
    left join questions
        on answers.question_id = questions.question_id
    left join judgments_per_answer
        on answers.answer_id = judgments_per_answer.answer_id
),

flagged as (
    select
        *,
        coalesce(is_answer_valid and is_question_kept and score is not null, false) as is_scored
    from answers_with_scores
)

select * from flagged
