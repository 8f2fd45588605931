{{ config(materialized='table') }}

-- Resampling of the kept questions with replacement: replicate b draws n_kept questions,
-- draw i picks position 1 + h(seed, b, i) mod n_kept in question_id order, where h chains
-- the lowbias32 integer hash (macros/arena.sql) so the draws depend on the seed only.

with questions as (
    select * from {{ ref('int_arena_question_quality') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

kept_questions as (
    select
        question_id,
        row_number() over (order by question_id) as question_position
    from questions
    where is_kept
),

-- Stream 1 is the bootstrap (the permutation tests use stream 2).
{{ seed_key_ctes('scoring', 1) }},

kept_count as (
    select count(*) as n_kept from kept_questions
),

{{ bootstrap_draw_keys('kept_count', 'n_kept') }},

draws as (
    select
        draw_keys.replicate,
        draw_keys.draw_index,
        kept_questions.question_id
    from draw_keys
    inner join kept_questions
        on (draw_keys.draw_key % draw_keys.n_kept)::bigint + 1 = kept_questions.question_position
)

select * from draws
