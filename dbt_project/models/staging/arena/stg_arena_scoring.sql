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
        scoring ->> '$.normalization' as normalization,
        scoring ->> '$.question_filter.kind' as question_filter_kind,
        (scoring ->> '$.question_filter.fraction')::double as question_filter_fraction,
        (scoring ->> '$.question_filter.min_score')::double as question_filter_min_score,
        (scoring ->> '$.bootstrap.n')::integer as bootstrap_n,
        (scoring ->> '$.bootstrap.seed')::bigint as bootstrap_seed,
        (scoring ->> '$.anomaly.permutations')::integer as permutation_n,
        (scoring ->> '$.anomaly.seed')::bigint as permutation_seed,
        (scoring ->> '$.anomaly.fdr')::double as anomaly_fdr,
        (scoring ->> '$.min_judgments')::integer as min_judgments,
        scoring ->> '$.identity_leaks' as identity_leaks,
        (scoring ->> '$.rationales.low')::integer as rationale_low,
        (scoring ->> '$.rationales.high')::integer as rationale_high,
        (scoring ->> '$.anomaly.min_effect')::double as anomaly_min_effect,
        (scoring ->> '$.tricks.share')::double as trick_share,
        (scoring ->> '$.tricks.fell_below')::double as trick_fell_below,
        (scoring ->> '$.diversity.near_duplicate')::double as diversity_near_duplicate,
        (scoring ->> '$.diversity.weight')::double as diversity_weight,
        (scoring ->> '$.pairwise.strong_weight')::integer as pairwise_strong_weight,
        scoring ->> '$.pairwise.baseline' as pairwise_baseline,
        coalesce(scoring ->> '$.pairwise.tie_model', 'half') as pairwise_tie_model
    from manifest
)

select * from scoring_settings
