{{ config(location=mart_location()) }}

with calls as (
    select
        * exclude (agent),
        agent as player
    from {{ ref('stg_calls') }}
    where game = 'arena'
),

calls_per_player_and_phase as (
    select
        player,
        phase,
        count(*) as n_calls,
        count(*) filter (where call_status = 'ok') as n_ok,
        count(*) filter (where call_status = 'invalid') as n_invalid,
        count(*) filter (where call_status = 'error') as n_error,
        count(*) filter (where call_status = 'cancelled') as n_cancelled,
        count(*) filter (where call_status = 'invalid') / count(*) as invalid_rate,
        count(*) filter (where call_status = 'error') / count(*) as error_rate,
        count(*) filter (where is_cache_hit) as n_cache_hits,
        coalesce(sum(n_transport_retries), 0)::bigint as n_transport_retries,
        sum(tokens_in)::bigint as tokens_in,
        sum(tokens_out)::bigint as tokens_out,
        sum(tokens_reasoning)::bigint as tokens_reasoning,
        sum(cost_usd) as cost_usd,
        count(*) filter (where batch_id is not null) as n_batch_calls,
        sum(cost_usd) filter (where batch_id is not null) as batch_cost_usd,
        count(*) filter (where is_truncated) as n_truncated,
        avg(latency_ms) as mean_latency_ms
    from calls
    group by player, phase
)

select * from calls_per_player_and_phase
