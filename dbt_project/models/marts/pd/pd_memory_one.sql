{{ config(location=mart_location()) }}

{#- The previous round's actions, the agent's own first, as aggregates.parquet names them. -#}
{%- set previous_rounds = ['cc', 'cd', 'dc', 'dd'] -%}

-- The memory-one profile of every agent side, one row per previous round, with the visits of
-- that round and the cooperations after them (pooled over the ok replicates at condition
-- level) and the 95% Wilson score interval of P(C) on those counts (pd_wilson_interval).

with

agent_metrics as (
    select * from {{ ref('pd_agent_metrics') }}
),

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
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
),

replicate_counts as (
    {% for side in ['a', 'b'] %}
    {% for previous in previous_rounds %}
    select
        condition,
        replicate,
        'agent_{{ side }}' as side,
        '{{ previous | upper }}' as previous_round,
        n_after_{{ previous }}_{{ side }} as n_visits,
        n_c_after_{{ previous }}_{{ side }} as n_cooperations
    from replicate_metrics
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

visit_counts as (
    select
        'replicate' as level,
        condition,
        replicate,
        side,
        previous_round,
        n_visits,
        n_cooperations
    from replicate_counts
    union all
    select
        'condition' as level,
        condition,
        null as replicate,
        side,
        previous_round,
        sum(n_visits) as n_visits,
        sum(n_cooperations) as n_cooperations
    from replicate_counts
    group by condition, side, previous_round
),

with_intervals as (
    select
        profiles.*,
        coalesce(visit_counts.n_visits, 0)::bigint as n_visits,
        coalesce(visit_counts.n_cooperations, 0)::bigint as n_cooperations,
        {{ pd_wilson_interval('visit_counts.n_cooperations', 'visit_counts.n_visits',
            'p_cooperate') }}
    from profiles
    left join visit_counts
        on
            profiles.level = visit_counts.level
            and profiles.condition = visit_counts.condition
            and profiles.replicate is not distinct from visit_counts.replicate
            and profiles.side = visit_counts.side
            and profiles.previous_round = visit_counts.previous_round
)

select * from with_intervals
order by level, condition, replicate, side, previous_round
