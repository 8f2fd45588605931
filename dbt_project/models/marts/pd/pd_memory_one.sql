{{ config(location=mart_location()) }}

{#- The previous round's actions, the agent's own first, as aggregates.parquet names them. -#}
{%- set previous_rounds = ['cc', 'cd', 'dc', 'dd'] -%}

with

agent_metrics as (
    select * from {{ ref('pd_agent_metrics') }}
),

profiles as (
    {% for previous in previous_rounds %}
    select
        level,
        condition,
        replicate,
        side,
        agent_name,
        '{{ previous | upper }}' as previous_round,
        p_c_after_{{ previous }} as p_cooperate
    from agent_metrics
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from profiles
order by level, condition, replicate, side, previous_round
