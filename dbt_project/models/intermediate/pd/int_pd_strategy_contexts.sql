{#- What each agent chose in each context it met: the previous round as it saw it (own
    executed action first; FIRST in round 1) and whether its opponent had defected in any
    earlier round (what GRIM remembers). The choice is the intended action, before noise;
    a round whose reply stayed invalid was played by the fallback, not chosen, and is left
    out (it still makes the context of the next round). -#}
{{ config(materialized='table') }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

with_context as (
    select
        condition,
        side,
        agent as agent_name,
        kind,
        intended_action,
        is_valid,
        coalesce(
            lag(action) over match_side || lag(opponent_action) over match_side, 'FIRST'
        ) as previous_round,
        coalesce(
            bool_or(opponent_action = 'D') over (
                match_side rows between unbounded preceding and 1 preceding
            ),
            false
        ) as opponent_has_defected
    from agent_rounds
    window match_side as (partition by match_id, side order by round_index)
),

context_counts as (
    select
        condition,
        side,
        agent_name,
        kind,
        previous_round,
        opponent_has_defected,
        count(*) as n_rounds,
        count(*) filter (where intended_action = 'C') as n_cooperate
    from with_context
    -- validity not recorded (an imported run: null) counts as a real choice
    where is_valid is not false
    group by condition, side, agent_name, kind, previous_round, opponent_has_defected
)

select * from context_counts
