{#- What each agent chose in each context it met: the previous round as it saw it (own
    executed action first; FIRST in round 1) and whether its opponent had defected in any
    earlier round (what GRIM remembers: opponent_has_defected of int_pd_agent_rounds). The choice is the intended action, before noise;
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
        agent_rounds.condition,
        agent_rounds.side,
        agent_rounds.agent as agent_name,
        agent_rounds.kind,
        agent_rounds.intended_action,
        agent_rounds.is_valid,
        coalesce(
            agent_rounds.previous_action || agent_rounds.opponent_previous_action, 'FIRST'
        ) as previous_round,
        agent_rounds.opponent_has_defected
    from agent_rounds
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
