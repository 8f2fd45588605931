{#- The measures of a group of provider calls (rows of stg_calls), one list for every game's
    calls summary: attempts by status, cache hits, transport retries, tokens, cost, cut replies,
    mean latency, and the shares of attempts that were invalid or failed. A sum over calls
    that reported no tokens or no cost is NULL, never 0. -#}
{% macro call_measures() -%}
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
{%- endmacro %}
