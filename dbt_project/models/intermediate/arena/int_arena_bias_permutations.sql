{{ config(materialized='table') }}

-- Permutation null of the judge x player bias: for every judge, the authors of the answers
-- it judged are shuffled within each stratum (judge x consensus level,
-- int_arena_bias_deviations) R times, the centred deviations staying in place, and each
-- player's count, mean and sample variance of centred deviations under the shuffled labels
-- are kept. Every judge is
-- shuffled in every permutation, so a permutation is a whole judge x player table, which
-- int_arena_bias_residuals takes apart like the observed one. A shuffle sorts a stratum's
-- answers by the lowbias32 chain of (seed, judge, permutation, the answer's position among
-- the judge's answers), ties by position.

with judged_answers as (
    select * from {{ ref('int_arena_bias_deviations') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

seed_halves as (
    select
        permutation_n,
        ((permutation_seed % 4294967296) + 4294967296) % 4294967296 as seed_low,
        (((permutation_seed // 4294967296) % 4294967296) + 4294967296) % 4294967296 as seed_high
    from scoring
),

-- Stream 2 is the permutation test (the bootstrap uses stream 1).
seed_low_mixed as (
    select
        permutation_n,
        seed_high,
        {{ arena_mix32('xor(seed_low, 2)') }} as low_key
    from seed_halves
),

seed_key as (
    select
        permutation_n,
        {{ arena_mix32('xor(low_key, seed_high::ubigint)') }} as seed_key
    from seed_low_mixed
),

judge_keys as (
    select distinct
        judged_answers.judge,
        seed_key.permutation_n,
        {{ arena_mix32('xor(seed_key.seed_key, judged_answers.judge_index::ubigint)') }}
            as judge_key
    from judged_answers
    cross join seed_key
),

permutations as (
    select
        judge,
        judge_key,
        unnest(generate_series(1, permutation_n)) as permutation
    from judge_keys
),

permutation_keys as (
    select
        judge,
        permutation,
        {{ arena_mix32('xor(judge_key, permutation::ubigint)') }} as permutation_key
    from permutations
),

answer_keys as (
    select
        permutation_keys.judge,
        permutation_keys.permutation,
        judged_answers.consensus_level,
        judged_answers.stratum_position,
        judged_answers.answer_position,
        {{ arena_mix32(
            'xor(permutation_keys.permutation_key, judged_answers.answer_position::ubigint)'
        ) }} as sort_key
    from permutation_keys
    inner join judged_answers
        on permutation_keys.judge = judged_answers.judge
),

shuffled as (
    select
        judge,
        permutation,
        consensus_level,
        stratum_position,
        row_number() over (
            partition by judge, permutation, consensus_level
            order by sort_key, answer_position
        ) as label_position
    from answer_keys
),

relabelled as (
    select
        shuffled.judge,
        shuffled.permutation,
        labels.player,
        deviations.centred_deviation
    from shuffled
    inner join judged_answers as deviations
        on
            shuffled.judge = deviations.judge
            and shuffled.consensus_level = deviations.consensus_level
            and shuffled.stratum_position = deviations.stratum_position
    inner join judged_answers as labels
        on
            shuffled.judge = labels.judge
            and shuffled.consensus_level = labels.consensus_level
            and shuffled.label_position = labels.stratum_position
),

permuted_means as (
    select
        judge,
        player,
        permutation,
        count(*) as n_answers,
        avg(centred_deviation) as pair_mean,
        coalesce(var_samp(centred_deviation), 0) as pair_variance
    from relabelled
    group by judge, player, permutation
)

select * from permuted_means
