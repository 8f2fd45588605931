{{ config(materialized='table') }}

-- The sign flips of the paired test, for every number of common replicates n of a compared
-- pair: when 2^n <= bootstrap_n, all 2^n flips (flip f gives pair i the sign -1 when bit i-1
-- of f is set; flip 0 is the observed sample), and the test is exact; otherwise bootstrap_n
-- random flips, pair i of flip f negated when h(seed, f, i) is odd, with h the lowbias32
-- chain of stream 2 (the bootstrap draws use stream 1). Samples larger than pd_max_draws()
-- get no flips: int_pd_paired_differences tests them with the normal limit.

with

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

{{ pd_seed_key('run_manifest', 2) }},

sample_sizes as (
    select distinct
        paired_replicates.n_common as sample_size,
        seed_key.seed_key,
        seed_key.bootstrap_n,
        paired_replicates.n_common < 63
        and 2 ** paired_replicates.n_common <= seed_key.bootstrap_n as is_exact
    from paired_replicates
    cross join seed_key
    where paired_replicates.n_common <= {{ pd_max_draws() }}
),

flips as (
    select
        sample_size,
        seed_key,
        is_exact,
        unnest(
            case
                when is_exact then generate_series(0, (2 ** sample_size)::bigint - 1)
                else generate_series(1, bootstrap_n)
            end
        ) as flip
    from sample_sizes
),

flip_slots as (
    select
        sample_size,
        is_exact,
        flip,
        {{ mix32('xor(seed_key, flip::ubigint)') }} as flip_key,
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
            else 1 - 2 * ({{ mix32('xor(flip_key, slot::ubigint)') }} & 1)::bigint
        end as sign
    from flip_slots
)

select * from signs
