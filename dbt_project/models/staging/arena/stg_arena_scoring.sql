{{ config(tags=['arena_questions']) }}

with manifest as (
    select json as manifest_json
    from read_json_objects('{{ run_file("run_manifest.json") }}')
),

scoring_settings as (
    select
        manifest_json ->> '$.run_id' as run_id,
        (manifest_json ->> '$.seed')::bigint as run_seed,
        coalesce(manifest_json ->> '$.scoring.normalization', 'shift') as normalization,
        coalesce(
            manifest_json ->> '$.scoring.question_normalization',
            manifest_json ->> '$.scoring.normalization',
            'shift'
        ) as question_normalization,
        coalesce(
            manifest_json ->> '$.scoring.question_filter.kind', 'none'
        ) as question_filter_kind,
        coalesce(
            (manifest_json ->> '$.scoring.question_filter.fraction')::double, 1.0 / 3
        ) as question_filter_fraction,
        coalesce(
            (manifest_json ->> '$.scoring.question_filter.min_score')::double, 5.0
        ) as question_filter_min_score,
        coalesce(
            (manifest_json ->> '$.scoring.bootstrap.n')::integer, 1000
        ) as bootstrap_n,
        coalesce(
            (manifest_json ->> '$.scoring.bootstrap.seed')::bigint,
            (manifest_json ->> '$.seed')::bigint,
            0
        ) as bootstrap_seed,
        coalesce(
            (manifest_json ->> '$.scoring.anomaly.permutations')::integer, 1000
        ) as permutation_n,
        coalesce(
            (manifest_json ->> '$.scoring.anomaly.seed')::bigint,
            (manifest_json ->> '$.seed')::bigint,
            0
        ) as permutation_seed,
        coalesce(
            (manifest_json ->> '$.scoring.anomaly.fdr')::double, 0.1
        ) as anomaly_fdr
    from manifest
)

select * from scoring_settings
