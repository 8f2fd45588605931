{#- The collapse parameters come from the manifest so that a plain `dbt build` uses exactly
    what the run recorded; `--vars '{collapse_k: 5, collapse_threshold: 0.1}'` overrides them
    for an ad-hoc look. -#}
with

source_manifest as (
    select *
    from {{ read_run_source('run', 'manifest') }}
),

renamed as (
    select
        schema_version,
        run_id,
        game,
        status as run_status,
        seed,
        config_sha256,
        started_at as started_at_utc,
        finished_at as finished_at_utc,
        coalesce(
            {{ var('collapse_k', 'null') }}::integer,
            (metric_params ->> 'collapse_k')::integer
        ) as collapse_k,
        coalesce(
            {{ var('collapse_threshold', 'null') }}::double,
            (metric_params ->> 'collapse_threshold')::double
        ) as collapse_threshold,
        (metric_params ->> 'bootstrap_n')::integer as bootstrap_n,
        -- the payoffs as agent A sees them: reward, sucker, temptation, punishment
        (config -> 'payoffs' -> 'CC' ->> 0)::double as payoff_r,
        (config -> 'payoffs' -> 'CD' ->> 0)::double as payoff_s,
        (config -> 'payoffs' -> 'DC' ->> 0)::double as payoff_t,
        (config -> 'payoffs' -> 'DD' ->> 0)::double as payoff_p,
        -- the lowest and highest payoff of either agent: the range of a payoff per round
        list_min(from_json(config -> '$.payoffs.*[*]', '["DOUBLE"]')) as lowest_payoff,
        list_max(from_json(config -> '$.payoffs.*[*]', '["DOUBLE"]')) as highest_payoff,
        (metric_params ->> 'bootstrap_seed')::bigint as bootstrap_seed,
        (metric_params ->> 'ecosystem_generations')::integer as ecosystem_generations,
        (metric_params ->> 'moran_population')::integer as moran_population,
        (metric_params ->> 'moran_repetitions')::integer as moran_repetitions,
        -- the plan: condition names and replicates (NULL in a manifest without a config)
        case
            when (config -> 'conditions') is not null
                then from_json(config -> '$.conditions[*].name', '["VARCHAR"]')
        end as planned_conditions,
        (config ->> 'replicates')::integer as planned_replicates,
        -- the primary family of the comparisons (config analysis.primary); a run recorded
        -- before the key existed gets the config's default, the cooperation of each seat
        coalesce(
            from_json(config -> '$.analysis.primary', '["VARCHAR"]'),
            ['cooperation_rate_a', 'cooperation_rate_b']
        ) as primary_metrics
    from source_manifest
)

select * from renamed
