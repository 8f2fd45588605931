{{ config(materialized='table') }}

-- Resampling of the questions that hold scored pairwise verdicts, with replacement:
-- replicate b draws n_questions questions, draw i picks position 1 + h(seed, b, i) mod
-- n_questions in question_id order, as int_arena_bootstrap_draws does for the kept
-- questions, on stream 3 of the bootstrap seed.

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

scored_questions as (
    select distinct question_id
    from outcomes
    where is_scored
),

judged_questions as (
    select
        question_id,
        row_number() over (order by question_id) as question_position
    from scored_questions
),

{{ seed_key_ctes('scoring', 3) }},

question_count as (
    select count(*) as n_questions from judged_questions
),

{{ bootstrap_draw_keys('question_count', 'n_questions') }},

draws as (
    select
        draw_keys.replicate,
        judged_questions.question_id,
        count(*) as n_drawn
    from draw_keys
    inner join judged_questions
        on
            (draw_keys.draw_key % draw_keys.n_questions)::bigint + 1
            = judged_questions.question_position
    group by draw_keys.replicate, judged_questions.question_id
)

select * from draws
