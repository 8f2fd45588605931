{#- One row per round and side of every finished PD match: the round seen from one agent,
    so tournament marts group by agent instead of repeating themselves for A and B. -#}
with

rounds as (
    select * from {{ ref('stg_pd_rounds') }}
),

matches as (
    select * from {{ ref('stg_pd_matches') }}
),

finished_rounds as (
    select rounds.*
    from rounds
    inner join matches
        on rounds.match_id = matches.match_id
    where matches.match_status = 'ok'
),

agent_rounds as (
    select
        match_id,
        condition,
        replicate,
        round_index,
        'agent_a' as side,
        agent_a_name as agent,
        agent_b_name as opponent,
        agent_a_name = agent_b_name as is_self_play,
        agent_a_intended_action as intended_action,
        agent_a_action as action,
        agent_b_intended_action as opponent_intended_action,
        agent_b_action as opponent_action,
        agent_a_payoff as payoff,
        agent_b_payoff as opponent_payoff
    from finished_rounds
    union all
    select
        match_id,
        condition,
        replicate,
        round_index,
        'agent_b' as side,
        agent_b_name as agent,
        agent_a_name as opponent,
        agent_a_name = agent_b_name as is_self_play,
        agent_b_intended_action as intended_action,
        agent_b_action as action,
        agent_a_intended_action as opponent_intended_action,
        agent_a_action as opponent_action,
        agent_b_payoff as payoff,
        agent_a_payoff as opponent_payoff
    from finished_rounds
)

select * from agent_rounds
