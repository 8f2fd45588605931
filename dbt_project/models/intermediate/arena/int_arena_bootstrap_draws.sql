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

seed_halves as (
    select
        bootstrap_n,
        ((bootstrap_seed % 4294967296) + 4294967296) % 4294967296 as seed_low,
        (((bootstrap_seed // 4294967296) % 4294967296) + 4294967296) % 4294967296 as seed_high
    from scoring
),

-- Stream 1 is the bootstrap (the permutation tests use stream 2).
seed_low_mixed as (
    select
        bootstrap_n,
        seed_high,
        {{ mix32('xor(seed_low, 1)') }} as low_key
    from seed_halves
),

seed_key as (
    select
        bootstrap_n,
        {{ mix32('xor(low_key, seed_high::ubigint)') }} as seed_key
    from seed_low_mixed
),

replicates as (
    select
        seed_key,
        unnest(generate_series(1, bootstrap_n)) as replicate
    from seed_key
),

kept_count as (
    select count(*) as n_kept from kept_questions
),

replicate_keys as (
    select
        replicate,
        {{ mix32('xor(seed_key, replicate::ubigint)') }} as replicate_key
    from replicates
),

draw_slots as (
    select
        replicate_keys.replicate,
        replicate_keys.replicate_key,
        kept_count.n_kept,
        unnest(generate_series(1, kept_count.n_kept)) as draw_index
    from replicate_keys
    cross join kept_count
    where kept_count.n_kept > 0
),

draw_keys as (
    select
        replicate,
        draw_index,
        n_kept,
        {{ mix32('xor(replicate_key, draw_index::ubigint)') }} as draw_key
    from draw_slots
),

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
