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

seed_halves as (
    select
        bootstrap_n,
        ((bootstrap_seed % 4294967296) + 4294967296) % 4294967296 as seed_low,
        (((bootstrap_seed // 4294967296) % 4294967296) + 4294967296) % 4294967296 as seed_high
    from scoring
),

seed_low_mixed as (
    select
        bootstrap_n,
        seed_high,
        {{ mix32('xor(seed_low, 3)') }} as low_key
    from seed_halves
),

seed_key as (
    select
        bootstrap_n,
        {{ mix32('xor(low_key, seed_high::ubigint)') }} as seed_key
    from seed_low_mixed
),

replicate_keys as (
    select
        replicate,
        {{ mix32('xor(seed_key, replicate::ubigint)') }} as replicate_key
    from (
        select
            seed_key,
            unnest(generate_series(1, bootstrap_n)) as replicate
        from seed_key
    ) as replicates
),

question_count as (
    select count(*) as n_questions from judged_questions
),

draw_keys as (
    select
        replicate,
        n_questions,
        {{ mix32('xor(replicate_key, draw_index::ubigint)') }} as draw_key
    from (
        select
            replicate_keys.replicate,
            replicate_keys.replicate_key,
            question_count.n_questions,
            unnest(generate_series(1, question_count.n_questions)) as draw_index
        from replicate_keys
        cross join question_count
        where question_count.n_questions > 0
    ) as draw_slots
),

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
