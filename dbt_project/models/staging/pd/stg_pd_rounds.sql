{#- Prompts and raw replies are left out: no metric reads them, and they are the bulk of
    the file. -#}
with

source_rounds as (
    select *
    from {{ read_run_jsonl('rounds.jsonl', {
        'schema_version': 'integer',
        'run_id': 'varchar',
        'match_id': 'varchar',
        'condition': 'varchar',
        'replicate': 'integer',
        'round_index': 'integer',
        'match_seed': 'bigint',
        'agent_a_name': 'varchar',
        'agent_b_name': 'varchar',
        'agent_a_kind': 'varchar',
        'agent_b_kind': 'varchar',
        'agent_a_intended_action': 'varchar',
        'agent_b_intended_action': 'varchar',
        'agent_a_action': 'varchar',
        'agent_b_action': 'varchar',
        'agent_a_payoff': 'double',
        'agent_b_payoff': 'double',
        'agent_a_cum_payoff': 'double',
        'agent_b_cum_payoff': 'double',
        'agent_a_valid': 'boolean',
        'agent_b_valid': 'boolean',
        'agent_a_attempts': 'integer',
        'agent_b_attempts': 'integer',
        'horizon_type': 'varchar',
        'fixed_n': 'integer',
        'stop_prob': 'double',
        'timestamp_utc': 'varchar',
    }) }}
),

renamed as (
    select
        schema_version,
        run_id,
        match_id,
        condition,
        replicate,
        round_index,
        match_seed,
        agent_a_name,
        agent_b_name,
        agent_a_kind,
        agent_b_kind,
        agent_a_intended_action,
        agent_b_intended_action,
        agent_a_action,
        agent_b_action,
        agent_a_payoff,
        agent_b_payoff,
        agent_a_cum_payoff,
        agent_b_cum_payoff,
        agent_a_valid,
        agent_b_valid,
        agent_a_attempts,
        agent_b_attempts,
        horizon_type,
        fixed_n,
        stop_prob,
        timestamp_utc as played_at_utc
    from source_rounds
    -- a torn last line (crash while writing) reads as an all-NULL row
    where run_id is not null
)

select * from renamed
