{{ config(materialized='table') }}

-- Resampling with replacement, for every sample size a condition (its ok replicates) or a
-- compared pair (its common replicates) needs: resample b of a sample of n draws
-- m = least(n, pd_max_draws()) positions (m out of n for a large sample), draw i picking
-- position 1 + h(seed, b, i) mod n, where h chains the lowbias32 integer hash
-- (macros/pd_stats.sql), so the draws depend on the manifest's bootstrap_seed only. Samples of
-- the same size share their draws; a sample of one gets none (its interval is NULL).

with

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

sample_sizes as (
    select distinct n_replicates as sample_size
    from replicate_metrics
    where n_replicates >= 2
    union
    select distinct n_common as sample_size
    from paired_replicates
    where n_common >= 2
),

-- stream 1 is the bootstrap (the random sign flips use stream 2)
{{ pd_seed_key('run_manifest', 1) }},

resamples as (
    select
        seed_key,
        unnest(generate_series(1, bootstrap_n)) as resample
    from seed_key
),

resample_keys as (
    select
        resample,
        {{ mix32('xor(seed_key, resample::ubigint)') }} as resample_key
    from resamples
),

draw_slots as (
    select
        sample_sizes.sample_size,
        resample_keys.resample,
        resample_keys.resample_key,
        unnest(generate_series(1, least(sample_sizes.sample_size, {{ pd_max_draws() }})))
            as draw_index
    from resample_keys
    cross join sample_sizes
),

draw_keys as (
    select
        sample_size,
        resample,
        draw_index,
        {{ mix32('xor(resample_key, draw_index::ubigint)') }} as draw_key
    from draw_slots
),

draws as (
    select
        sample_size,
        resample,
        draw_index,
        (draw_key % sample_size)::bigint + 1 as draw_position
    from draw_keys
)

select * from draws
