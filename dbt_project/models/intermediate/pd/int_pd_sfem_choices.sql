{#- What each agent chose in each of its finished matches, held against each strategy of the
    SFEM set (docs/strategy.md#strategy-shares-sfem): per match side and strategy, how many
    choices the strategy would have made otherwise (a deterministic prescription) and how
    many C and D the agent chose where the strategy draws (GTFT after a defection). The
    history is as executed; the choice is the intended action; a fallback round is no
    choice (as in int_pd_strategy_contexts). `vector_id` numbers the agent's distinct count
    vectors (the counts under all nine strategies, in strategy order): sides with one
    vector_id have the same likelihood under every strategy and tremble, so the fits run
    over vectors weighted by how many sides share them (int_pd_sfem_vectors). -#}
{{ config(materialized='table') }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

reference_strategies as (
    select * from {{ ref('int_pd_reference_strategies') }}
),

-- GTFT's forgiveness as the single-label fit reads it from the run's payoffs
generosity as (
    select p_cooperate as generous_prob
    from reference_strategies
    where
        reference = 'GTFT'
        and previous_round = 'CD'
        and opponent_has_defected
),

strategies as (
    select unnest(['ALLC', 'ALLD', 'TFT', 'STFT', 'GRIM', 'WSLS', 'GTFT', 'TF2T', 'ALT'])
        as strategy
),

-- grouped rather than a window, as in int_pd_strategy_contexts
opponent_first_defections as (
    select
        match_id,
        side,
        min(round_index) filter (where opponent_action = 'D')
            as opponent_first_defection_round
    from agent_rounds
    group by match_id, side
),

-- the histories a side met in a match, each with how often it chose C there
histories as (
    select
        agent_rounds.agent as agent_name,
        agent_rounds.match_id,
        agent_rounds.side,
        agent_rounds.round_index % 2 = 1 as is_odd_round,
        agent_rounds.previous_action,
        agent_rounds.opponent_previous_action,
        agent_rounds.opponent_second_previous_action,
        coalesce(
            opponent_first_defections.opponent_first_defection_round < agent_rounds.round_index,
            false
        ) as opponent_has_defected,
        count(*) as n_rounds,
        count(*) filter (where agent_rounds.intended_action = 'C') as n_cooperate
    from agent_rounds
    inner join opponent_first_defections
        on
            agent_rounds.match_id = opponent_first_defections.match_id
            and agent_rounds.side = opponent_first_defections.side
    -- validity not recorded (an imported run: null) counts as a real choice
    where agent_rounds.is_valid is not false
    group by all
),

prescribed as (
    select
        histories.*,
        strategies.strategy,
        case
            when strategies.strategy = 'ALLC' then 1.0
            when strategies.strategy = 'ALLD' then 0.0
            when strategies.strategy = 'ALT' then histories.is_odd_round::double
            when strategies.strategy = 'GRIM' then (not histories.opponent_has_defected)::double
            when strategies.strategy = 'STFT'
                then coalesce(histories.opponent_previous_action = 'C', false)::double
            -- TFT, WSLS, GTFT and TF2T cooperate first
            when histories.opponent_previous_action is null then 1.0
            when strategies.strategy = 'TFT'
                then (histories.opponent_previous_action = 'C')::double
            when strategies.strategy = 'WSLS'
                then (histories.previous_action = histories.opponent_previous_action)::double
            when strategies.strategy = 'TF2T'
                then (
                    histories.opponent_previous_action = 'C'
                    or histories.opponent_second_previous_action is distinct from 'D'
                )::double
            when histories.opponent_previous_action = 'C' then 1.0
            else generosity.generous_prob
        end as p_cooperate
    from histories
    cross join strategies
    cross join generosity
),

counted as (
    select
        agent_name,
        match_id,
        side,
        strategy,
        sum(n_rounds)::bigint as n_choices,
        sum(
            case
                when p_cooperate = 0 then n_cooperate
                when p_cooperate = 1 then n_rounds - n_cooperate
                else 0
            end
        )::bigint as n_deviations,
        coalesce(sum(n_cooperate) filter (where p_cooperate > 0 and p_cooperate < 1), 0)::bigint
            as n_drawn_cooperate,
        coalesce(
            sum(n_rounds - n_cooperate) filter (where p_cooperate > 0 and p_cooperate < 1), 0
        )::bigint as n_drawn_defect,
        -- the probability of C where the strategy draws (GTFT's forgiveness); 0.5 unused
        coalesce(max(p_cooperate) filter (where p_cooperate > 0 and p_cooperate < 1), 0.5)
            as drawn_p_cooperate
    from prescribed
    group by agent_name, match_id, side, strategy
),

-- one key per side: its counts under every strategy, in strategy order
keyed as (
    select
        *,
        string_agg(
            concat_ws(
                ',', n_choices, n_deviations, n_drawn_cooperate, n_drawn_defect, drawn_p_cooperate
            ),
            ';' order by strategy
        ) over (partition by agent_name, match_id, side) as vector_key
    from counted
)

select
    * exclude (vector_key),
    dense_rank() over (partition by agent_name order by vector_key) as vector_id
from keyed
