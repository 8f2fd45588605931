{{ config(location=run_file('arena_calls_summary.parquet')) }}

with calls as (
    select * from {{ ref('stg_arena_calls') }}
),

calls_per_player_and_phase as (
    select
        player,
        phase,
        count(*) as n_calls,
        count(*) filter (where status = 'ok') as n_ok,
        count(*) filter (where status = 'invalid') as n_invalid,
        count(*) filter (where status = 'error') as n_error,
        count(*) filter (where status = 'invalid') / count(*) as invalid_rate,
        count(*) filter (where status = 'error') / count(*) as error_rate,
        count(*) filter (where is_cache_hit) as n_cache_hits,
        sum(n_transport_retries) as n_transport_retries,
        sum(tokens_in) as tokens_in,
        sum(tokens_out) as tokens_out,
        sum(cost_usd) as cost_usd,
        avg(latency_ms) as mean_latency_ms
    from calls
    group by player, phase
)

select * from calls_per_player_and_phase
