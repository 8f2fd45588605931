{{ config(materialized='table') }}

-- Permutation null of the judge x player bias. In each of R permutations the authors of the
-- answers to each question are shuffled among those answers, the same shuffle for every
-- judge: an answer keeps all its judges' centred deviations (which sum to about zero over
-- its judges, as deviations from the other judges' mean do) and takes another answer's
-- author as its label. A judgement whose new label is its own judge is left out (judges
-- never score their own answers). Each judge x label's count, mean and sample variance of
-- centred deviations are kept: a whole judge x player table per permutation, which
-- int_arena_bias_residuals takes apart like the observed one. A shuffle sorts a question's
-- answers by the lowbias32 chain of (seed, permutation, question number, the answer's
-- position among the question's answers by author), ties by position.

with deviations as (
    select * from {{ ref('int_arena_bias_deviations') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

judged_answers as (
    select distinct
        question_id,
        answer_id,
        player
    from deviations
),

answers as (
    select
        question_id,
        answer_id,
        player,
        row_number() over (partition by question_id order by player) as author_position,
        dense_rank() over (order by question_id) as question_index
    from judged_answers
),

-- Stream 2 is the permutation test (the bootstrap uses stream 1).
{{ seed_key_ctes('scoring', 2, 'permutation_seed', 'permutation_n') }},

permutations as (
    select
        seed_key,
        unnest(generate_series(1, permutation_n)) as permutation
    from seed_key
),

permutation_keys as (
    select
        permutation,
        mix32(xor(seed_key, permutation::ubigint)) as permutation_key
    from permutations
),

question_keys as (
    select distinct
        permutation_keys.permutation,
        answers.question_id,
        mix32(xor(permutation_keys.permutation_key, answers.question_index::ubigint))
            as question_key
    from permutation_keys
    cross join answers
),

answer_keys as (
    select
        question_keys.permutation,
        answers.question_id,
        answers.answer_id,
        answers.author_position,
        mix32(xor(question_keys.question_key, answers.author_position::ubigint))
            as sort_key
    from question_keys
    inner join answers
        on question_keys.question_id = answers.question_id
),

shuffled as (
    select
        permutation,
        question_id,
        answer_id,
        row_number() over (
            partition by permutation, question_id order by sort_key, author_position
        ) as label_position
    from answer_keys
),

labelled as (
    select
        shuffled.permutation,
        shuffled.answer_id,
        labels.player as new_author
    from shuffled
    inner join answers as labels
        on
            shuffled.question_id = labels.question_id
            and shuffled.label_position = labels.author_position
),

relabelled as (
    select
        deviations.judge,
        labelled.new_author as player,
        labelled.permutation,
        deviations.centred_deviation
    from labelled
    inner join deviations
        on labelled.answer_id = deviations.answer_id
    where labelled.new_author != deviations.judge
),

permuted_means as (
    {{ arena_bias_cells('relabelled', 'permutation') }}
)

select * from permuted_means
