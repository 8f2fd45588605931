with source as (
    select *
    from {{ arena_read_jsonl('calls.jsonl', {
        'schema_version': 'integer',
        'run_id': 'varchar',
        'call_id': 'varchar',
        'game': 'varchar',
        'phase': 'varchar',
        'agent': 'varchar',
        'item_id': 'varchar',
        'attempt': 'integer',
        'transport_retries': 'integer',
        'provider': 'varchar',
        'model': 'varchar',
        'prompt_sha256': 'varchar',
        'latency_ms': 'double',
        'tokens_in': 'bigint',
        'tokens_out': 'bigint',
        'cost_usd': 'double',
        'status': 'varchar',
        'error': 'varchar',
        'cache_hit': 'boolean',
        'timestamp_utc': 'varchar',
    }) }}
),

renamed as (
    select
        call_id,
        agent as player,
        phase,
        item_id,
        attempt,
        provider,
        model,
        prompt_sha256,
        latency_ms,
        tokens_in,
        tokens_out,
        cost_usd,
        status,
        error as error_message,
        timestamp_utc as called_at,
        run_id,
        schema_version,
        coalesce(transport_retries, 0) as n_transport_retries,
        coalesce(cache_hit, false) as is_cache_hit
    from source
    where call_id is not null and game = 'arena'
)

select * from renamed
