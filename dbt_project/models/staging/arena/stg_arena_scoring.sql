{{ config(tags=['arena_questions']) }}

with manifest as (
    select
        run_id,
        seed,
        scoring
    from {{ read_run_source('run', 'manifest') }}
),

scoring_settings as (
    select
        run_id,
        seed as run_seed,
        coalesce(scoring ->> '$.normalization', 'shift') as normalization,
        coalesce(
            scoring ->> '$.question_normalization',
            scoring ->> '$.normalization',
            'shift'
        ) as question_normalization,
        coalesce(
            scoring ->> '$.question_filter.kind', 'none'
        ) as question_filter_kind,
        coalesce(
            (scoring ->> '$.question_filter.fraction')::double, 1.0 / 3
        ) as question_filter_fraction,
        coalesce(
            (scoring ->> '$.question_filter.min_score')::double, 5.0
        ) as question_filter_min_score,
        coalesce(
            (scoring ->> '$.bootstrap.n')::integer, 1000
        ) as bootstrap_n,
        coalesce(
            (scoring ->> '$.bootstrap.seed')::bigint,
            seed,
            0
        ) as bootstrap_seed,
        coalesce(
            (scoring ->> '$.anomaly.permutations')::integer, 1000
        ) as permutation_n,
        coalesce(
            (scoring ->> '$.anomaly.seed')::bigint,
            seed,
            0
        ) as permutation_seed,
        coalesce(
            (scoring ->> '$.anomaly.fdr')::double, 0.1
        ) as anomaly_fdr
    from manifest
)

select * from scoring_settings
