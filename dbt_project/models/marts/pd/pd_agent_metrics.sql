{{ config(location=mart_location()) }}

with

aggregates as (
    select * from {{ ref('pd_aggregates') }}
),

-- each side's columns (those ending in _a, or _b) under one name, the metrics in
-- aggregates.parquet's order
agent_rows as (
    select
        level,
        condition,
        replicate,
        'agent_a' as side,
        agent_a_name as agent_name,
        agent_a_kind as agent_kind,
        n_replicates,
        n_rounds,
        columns('^(.+)_a$') as '\1'  -- noqa: RF05
    from aggregates
    union all by name
    select
        level,
        condition,
        replicate,
        'agent_b' as side,
        agent_b_name as agent_name,
        agent_b_kind as agent_kind,
        n_replicates,
        n_rounds,
        columns('^(.+)_b$') as '\1'  -- noqa: RF05
    from aggregates
)

select * from agent_rows
order by level, condition, replicate, side
