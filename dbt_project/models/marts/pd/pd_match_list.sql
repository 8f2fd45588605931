{{ config(location=mart_location()) }}

with

matches as (
    select * from {{ ref('stg_pd_matches') }}
),

match_list as (
    select
        match_id,
        condition,
        replicate,
        agent_a_name,
        agent_a_kind,
        agent_b_name,
        agent_b_kind,
        planned_rounds,
        rounds_played,
        match_status,
        abort_reason,
        'llm' in (agent_a_kind, agent_b_kind) as has_llm_agent
    from matches
)

select * from match_list
order by condition, replicate
