{#- A view: int_pd_round_features, a table, is its only reader, so the JSON is parsed once
    per build. Just the columns the metrics read: DuckDB parses only the columns a query
    selects, so prompts, raw replies, timestamps, seeds and running totals stay in the file. -#}
with

source_rounds as (
    select *
    from {{ read_run_source('pd', 'rounds') }}
),

renamed as (
    select
        match_id,
        condition,
        replicate,
        round_index,
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
        agent_a_valid,
        agent_b_valid,
        agent_a_attempts,
        agent_b_attempts,
        -- null in lines of schema version 1, which did not record truncation
        agent_a_truncated,
        agent_b_truncated
    from source_rounds
    -- a torn last line (crash while writing) reads as an all-NULL row
    where match_id is not null
)

select * from renamed
