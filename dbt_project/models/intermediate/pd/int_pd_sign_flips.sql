{{ config(materialized='table') }}

-- The sign flips of the paired test, for every number of common replicates n of a compared
-- pair: for n <= pd_exact_flip_max() (12), all 2^n flips (flip f gives pair i the sign -1
-- when bit i-1 of f is set; flip 0 is the observed sample), and the test is exact; otherwise
-- B random flips, pair i of flip f negated when h(seed, f, i) is odd, with h the lowbias32
-- chain of stream 2. B = pd_random_flip_count(): max(bootstrap_n, 400 x the run's tests),
-- so that the smallest p of random flips never keeps a clear difference from passing
-- Benjamini-Hochberg (macros/pd_stats.sql). Samples larger than pd_max_draws() get no
-- flips: int_pd_paired_differences tests them with the normal limit.

with

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

{{ seed_key_ctes('run_manifest', 2) }},

{{ pd_test_count_ctes('paired_replicates') }},

sample_sizes as (
    select distinct
        paired_replicates.n_common as sample_size,
        seed_key.seed_key,
        {{ pd_random_flip_count('seed_key.bootstrap_n', 'test_count.n_tests') }}
            as n_random_flips,
        paired_replicates.n_common <= {{ pd_exact_flip_max() }} as is_exact
    from paired_replicates
    cross join seed_key
    cross join test_count
    where not {{ pd_uses_normal_limit('paired_replicates.n_common', 'test_count.n_tests') }}
),

flips as (
    select
        sample_size,
        seed_key,
        is_exact,
        unnest(
            case
                when is_exact then generate_series(0, (2 ** sample_size)::bigint - 1)
                else generate_series(1, n_random_flips)
            end
        ) as flip
    from sample_sizes
),

flip_slots as (
    select
        sample_size,
        is_exact,
        flip,
        mix32(xor(seed_key, flip::ubigint)) as flip_key,
        unnest(generate_series(1, sample_size)) as slot
    from flips
),

signs as (
    select
        sample_size,
        is_exact,
        flip,
        slot,
        case
            when is_exact then 1 - 2 * ((flip >> (slot - 1)) & 1)
            else 1 - 2 * (mix32(xor(flip_key, slot::ubigint)) & 1)::bigint
        end as sign
    from flip_slots
)

select * from signs
