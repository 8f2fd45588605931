{#- What each agent chose in each of its finished match sides, held against each strategy of
    the SFEM set (docs/strategy.md#strategy-shares-sfem): one row per side, its choices and,
    per strategy, how many of them the strategy would have made otherwise (a certain
    prescription), and the C and D it chose where GTFT draws (after the opponent's D). The
    history is as executed; the choice is the intended action; a fallback round is no
    choice (as in int_pd_strategy_contexts). One pass over the rounds. -#}
{{ config(materialized='table') }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

choices as (
    select
        agent as agent_name,
        match_id,
        side,
        round_index,
        intended_action = 'C' as is_cooperate,
        previous_action,
        opponent_previous_action,
        opponent_second_previous_action,
        opponent_has_defected
    from agent_rounds
    -- validity not recorded (an imported run: null) counts as a real choice
    where is_valid is not false
),

side_counts as (
    select
        agent_name,
        match_id,
        side,
        count(*) as n_choices,
        {%- for strategy in sfem_strategies() %}
        count(*) filter (
            where is_cooperate != ({{ sfem_prescribes_cooperation(strategy) }})
        ) as deviations_{{ strategy | lower }},
        {%- endfor %}
        count(*) filter (where opponent_previous_action = 'D' and is_cooperate)
            as gtft_drawn_cooperate,
        count(*) filter (where opponent_previous_action = 'D' and not is_cooperate)
            as gtft_drawn_defect
    from choices
    group by agent_name, match_id, side
)

select * from side_counts
