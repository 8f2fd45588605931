{#- One row per round and side of every finished PD match: the round seen from one agent,
    so tournament marts group by agent instead of repeating themselves for A and B. -#}
with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

finished_rounds as (
    select *
    from round_features
    where match_status = 'ok'
),

agent_rounds as (
    select
        match_id,
        condition,
        replicate,
        round_index,
        'agent_a' as side,
        name_a as agent,
        kind_a as kind,
        name_b as opponent,
        name_a = name_b as is_self_play,
        intended_action_a as intended_action,
        is_valid_a as is_valid,
        action_a as action,
        intended_action_b as opponent_intended_action,
        action_b as opponent_action,
        payoff_a as payoff,
        payoff_b as opponent_payoff
    from finished_rounds
    union all
    select
        match_id,
        condition,
        replicate,
        round_index,
        'agent_b' as side,
        name_b as agent,
        kind_b as kind,
        name_a as opponent,
        name_a = name_b as is_self_play,
        intended_action_b as intended_action,
        is_valid_b as is_valid,
        action_b as action,
        intended_action_a as opponent_intended_action,
        action_a as opponent_action,
        payoff_b as payoff,
        payoff_a as opponent_payoff
    from finished_rounds
)

select * from agent_rounds
