{{ config(location=mart_location()) }}

with questions as (
    select * from {{ ref('int_arena_question_quality') }}
),

question_texts as (
    select * from {{ ref('stg_arena_questions') }}
),

answers as (
    select * from {{ ref('int_arena_answer_scores') }}
),

answers_per_question as (
    select
        question_id,
        count(*) as n_answers,
        avg(score) as mean_answer_score,
        stddev_samp(score) as discrimination,
        avg(score_stddev) as controversy,
        avg(score) filter (where not is_own_question) as mean_answer_score_others,
        max(score) filter (where is_own_question) as author_answer_score
    from answers
    where is_scored
    group by question_id
),

final as (
    select
        questions.question_id,
        questions.author,
        questions.category,
        question_texts.question_text,
        questions.quality,
        questions.is_kept,
        answers_per_question.mean_answer_score,
        answers_per_question.discrimination,
        answers_per_question.controversy,
        answers_per_question.mean_answer_score_others,
        answers_per_question.author_answer_score,
        coalesce(answers_per_question.n_answers, 0) as n_answers
    from questions
    inner join question_texts
        on questions.question_id = question_texts.question_id
    left join answers_per_question
        on questions.question_id = answers_per_question.question_id
)

select * from final
order by question_id
