{{ config(location=mart_location()) }}

with

cooperation_over_time as (
    select * from {{ ref('pd_cooperation_over_time') }}
),

agent_metrics as (
    select * from {{ ref('pd_agent_metrics') }}
),

condition_rounds as (
    select
        condition,
        round_index,
        n_replicates,
        cooperation_rate_a,
        cooperation_rate_b
    from cooperation_over_time
    where level = 'condition'
),

agent_rounds as (
    {% for side in ['a', 'b'] %}
    select
        condition,
        'agent_{{ side }}' as side,
        round_index,
        n_replicates,
        cooperation_rate_{{ side }} as cooperation_rate
    from condition_rounds
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

condition_agents as (
    select
        condition,
        side,
        agent_name
    from agent_metrics
    where level = 'condition'
),

named_agent_rounds as (
    select
        agent_rounds.condition,
        agent_rounds.side,
        condition_agents.agent_name,
        agent_rounds.round_index,
        agent_rounds.n_replicates,
        agent_rounds.cooperation_rate
    from agent_rounds
    inner join condition_agents
        on
            agent_rounds.condition = condition_agents.condition
            and agent_rounds.side = condition_agents.side
)

select * from named_agent_rounds
order by condition, side, round_index
