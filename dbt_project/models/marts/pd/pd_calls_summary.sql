{{ config(location=mart_location()) }}

{%- set call_measures -%}
        count(*) as n_calls,
        count(*) filter (where call_status = 'ok') as n_ok,
        count(*) filter (where call_status = 'invalid') as n_invalid,
        count(*) filter (where call_status = 'error') as n_errors,
        count(*) filter (where call_status = 'cancelled') as n_cancelled,
        count(*) filter (where is_cache_hit) as n_cache_hits,
        coalesce(sum(n_transport_retries), 0)::bigint as n_transport_retries,
        sum(tokens_in)::bigint as tokens_in,
        sum(tokens_out)::bigint as tokens_out,
        sum(tokens_reasoning)::bigint as tokens_reasoning,
        sum(cost_usd) as cost_usd,
        count(*) filter (where is_truncated) as n_truncated,
        avg(latency_ms) as mean_latency_ms,
        count(*) filter (where call_status = 'invalid') / nullif(count(*), 0) as invalid_attempt_share,
        count(*) filter (where call_status = 'error') / nullif(count(*), 0) as error_rate
{%- endset %}

with

calls as (
    select * from {{ ref('stg_calls') }}
    where game = 'pd'
),

agent_rows as (
    select
        'agent' as level,
        game,
        condition,
        agent,
        provider,
        model,
        {{ call_measures }}
    from calls
    group by game, condition, agent, provider, model
),

-- an aggregate without group by always returns one row, so the file is never empty and
-- never holds the all-NULL row an empty external model would write
run_rows as (
    select
        'run' as level,
        null as game,
        null as condition,
        null as agent,
        null as provider,
        null as model,
        {{ call_measures }}
    from calls
),

both_levels as (
    select * from run_rows
    union all
    select * from agent_rows
)

select * from both_levels
order by level, game, condition, agent, provider, model
