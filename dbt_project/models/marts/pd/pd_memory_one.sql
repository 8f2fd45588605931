{{ config(location=mart_location()) }}

-- The memory-one profile of every agent side, one row per previous round, with the visits of
-- that round and the cooperations after them (pooled over the ok replicates at condition
-- level) and the 95% Wilson score interval of P(C) on those counts.

with

agent_metrics as (
    select * from {{ ref('pd_agent_metrics') }}
),

agent_match_metrics as (
    select * from {{ ref('int_pd_agent_match_metrics') }}
    where match_status = 'ok'
),

-- the previous round's actions, the agent's own first
profiles as (
    select
        level,
        condition,
        replicate,
        side,
        agent_name,
        upper(right(previous_column, 2)) as previous_round,
        p_cooperate
    from agent_metrics
    unpivot include nulls (
        p_cooperate for previous_column in (p_c_after_cc, p_c_after_cd, p_c_after_dc, p_c_after_dd)
    )
),

replicate_counts as (
    select
        condition,
        replicate,
        side,
        upper(right(visits_column, 2)) as previous_round,
        n_visits,
        case visits_column
            when 'n_after_cc' then n_c_after_cc
            when 'n_after_cd' then n_c_after_cd
            when 'n_after_dc' then n_c_after_dc
            when 'n_after_dd' then n_c_after_dd
        end as n_cooperations
    from agent_match_metrics
    unpivot (n_visits for visits_column in (n_after_cc, n_after_cd, n_after_dc, n_after_dd))
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
        wilson_count_low(visit_counts.n_cooperations, visit_counts.n_visits)
            as p_cooperate_ci_low,
        wilson_count_high(visit_counts.n_cooperations, visit_counts.n_visits)
            as p_cooperate_ci_high,
        case
            when coalesce(visit_counts.n_visits, 0) = 0 then 'the previous round never occurred'
        end as p_cooperate_ci_note
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
