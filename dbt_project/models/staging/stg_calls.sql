{{ config(tags=['pd', 'arena']) }}

with

source_calls as (
    select *
    from {{ read_run_source('run', 'calls') }}
),

renamed as (
    select
        schema_version,
        run_id,
        call_id,
        game,
        phase,
        agent,
        match_id,
        condition,
        replicate,
        round_index,
        item_id,
        attempt,
        provider,
        model,
        prompt_sha256,
        latency_ms,
        tokens_in,
        tokens_out,
        tokens_reasoning,
        cost_usd,
        finish_reason,
        status as call_status,
        parse_rule,
        error as error_message,
        timestamp_utc as called_at_utc,
        batch_id,
        coalesce(transport_retries, 0) as n_transport_retries,
        coalesce(cache_hit, false) as is_cache_hit,
        coalesce(truncated, false) as is_truncated
    from source_calls
    -- a torn last line (crash while writing) reads as an all-NULL row
    where call_id is not null
)

select * from renamed
