{{ config(location=mart_location()) }}

with

aggregates as (
    select * from {{ ref('pd_aggregates') }}
),

agent_rows as (
    {% for side in ['a', 'b'] %}
    select
        level,
        condition,
        replicate,
        'agent_{{ side }}' as side,
        agent_{{ side }}_name as agent_name,
        agent_{{ side }}_kind as agent_kind,
        n_replicates,
        {{ pd_agent_metric_selects(side) | join(',\n        ') }}
    from aggregates
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from agent_rows
order by level, condition, replicate, side
