{#- One row per round and side of every PD match, any status: the round seen from one
    agent, so that a metric of one agent is written once (int_pd_agent_match_metrics) and
    tournament marts group by agent instead of repeating themselves for A and B. -#}
with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

agent_rounds as (
    select
        match_id,
        condition,
        replicate,
        round_index,
        match_status,
        'agent_a' as side,
        name_a as agent,
        kind_a as kind,
        name_b as opponent,
        name_a = name_b as is_self_play,
        intended_action_a as intended_action,
        is_valid_a as is_valid,
        n_attempts_a as n_attempts,
        is_truncated_a as is_truncated,
        action_a as action,
        prev_action_a as previous_action,
        intended_action_b as opponent_intended_action,
        action_b as opponent_action,
        prev_action_b as opponent_previous_action,
        prev2_action_b as opponent_second_previous_action,
        has_defected_before_b as opponent_has_defected,
        payoff_a as payoff,
        payoff_b as opponent_payoff
    from round_features
    union all
    select
        match_id,
        condition,
        replicate,
        round_index,
        match_status,
        'agent_b' as side,
        name_b as agent,
        kind_b as kind,
        name_a as opponent,
        name_a = name_b as is_self_play,
        intended_action_b as intended_action,
        is_valid_b as is_valid,
        n_attempts_b as n_attempts,
        is_truncated_b as is_truncated,
        action_b as action,
        prev_action_b as previous_action,
        intended_action_a as opponent_intended_action,
        action_a as opponent_action,
        prev_action_a as opponent_previous_action,
        prev2_action_a as opponent_second_previous_action,
        has_defected_before_a as opponent_has_defected,
        payoff_b as payoff,
        payoff_a as opponent_payoff
    from round_features
)

select * from agent_rounds
