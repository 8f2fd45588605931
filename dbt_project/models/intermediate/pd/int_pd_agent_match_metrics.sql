{#- One row per PD match (any status) and side: every metric of one agent, written once,
    from the rounds as that agent saw them (int_pd_agent_rounds). The counts behind a rate
    (its trials) stand beside it. -#}
{{ config(materialized='table') }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
),

agent_totals as (
    select
        match_id,
        condition,
        replicate,
        match_status,
        side,
        agent,
        kind,
        count(*) as rounds_played,
        -- the agent's moves in round order ('CCDDDCD'), cut wherever it did not defect: the
        -- longest piece is its longest run of consecutive defections
        list_max(list_transform(
            regexp_split_to_array(
                string_agg(coalesce(action, '-'), '' order by round_index), '[^D]+'
            ),
            lambda piece: length(piece)
        )) as longest_defection_streak,
        avg((action = 'C')::integer) as cooperation_rate,
        sum(payoff) as total_payoff,
        sum(opponent_payoff) as opponent_total_payoff,
        count(*) filter (where opponent_previous_action = 'D') as n_after_opponent_defection,
        count(*) filter (
            where opponent_previous_action = 'D' and action = 'D'
        ) as n_retaliations,
        count(*) filter (
            where opponent_previous_action = 'D' and action = 'C'
        ) as n_forgivenesses,
        -- memory-one states from the agent's own point of view: its own previous action first
        count(*) filter (
            where previous_action = 'C' and opponent_previous_action = 'C'
        ) as n_after_cc,
        count(*) filter (
            where previous_action = 'C' and opponent_previous_action = 'D'
        ) as n_after_cd,
        count(*) filter (
            where previous_action = 'D' and opponent_previous_action = 'C'
        ) as n_after_dc,
        count(*) filter (
            where previous_action = 'D' and opponent_previous_action = 'D'
        ) as n_after_dd,
        count(*) filter (
            where previous_action = 'C' and opponent_previous_action = 'C' and action = 'C'
        ) as n_c_after_cc,
        count(*) filter (
            where previous_action = 'C' and opponent_previous_action = 'D' and action = 'C'
        ) as n_c_after_cd,
        count(*) filter (
            where previous_action = 'D' and opponent_previous_action = 'C' and action = 'C'
        ) as n_c_after_dc,
        count(*) filter (
            where previous_action = 'D' and opponent_previous_action = 'D' and action = 'C'
        ) as n_c_after_dd,
        min(round_index) filter (where action = 'D') as first_defection_round,
        min(round_index) filter (where opponent_action = 'D') as opponent_first_defection_round,
        bool_or(kind = 'llm') as is_llm,
        -- an imported run whose source did not record validity: not recorded, not 0
        count(is_valid) = count(*) as is_validity_recorded,
        count(*) filter (where not is_valid) as n_invalid_moves,
        avg((action = 'C')::integer) filter (where is_valid) as cooperation_rate_valid,
        -- a valid move took one valid attempt, after any invalid ones; a fallback, none
        sum(n_attempts - is_valid::integer)::bigint as n_invalid_attempts,
        sum(n_attempts)::bigint as n_attempts,
        -- NULL when the rounds did not record truncation (schema version 1)
        sum(is_truncated::integer)::bigint as n_truncated_rounds
    from agent_rounds
    group by match_id, condition, replicate, match_status, side, agent, kind
),

agent_metrics as (
    select
        agent_totals.match_id,
        agent_totals.condition,
        agent_totals.replicate,
        agent_totals.match_status,
        agent_totals.side,
        agent_totals.agent,
        agent_totals.kind,
        agent_totals.rounds_played as n_rounds,
        -- a match is one trial of being nice
        1 as n_matches,
        agent_totals.cooperation_rate,
        agent_totals.total_payoff,
        agent_totals.total_payoff / agent_totals.rounds_played as payoff_per_round,
        agent_totals.opponent_total_payoff - agent_totals.total_payoff
            as exploitability_payoff_gap,
        agent_totals.n_retaliations / nullif(agent_totals.n_after_opponent_defection, 0)
            as retaliation_rate,
        agent_totals.n_forgivenesses / nullif(agent_totals.n_after_opponent_defection, 0)
            as forgiveness_rate,
        agent_totals.n_after_opponent_defection,
        agent_totals.n_c_after_cc / nullif(agent_totals.n_after_cc, 0) as p_c_after_cc,
        agent_totals.n_c_after_cd / nullif(agent_totals.n_after_cd, 0) as p_c_after_cd,
        agent_totals.n_c_after_dc / nullif(agent_totals.n_after_dc, 0) as p_c_after_dc,
        agent_totals.n_c_after_dd / nullif(agent_totals.n_after_dd, 0) as p_c_after_dd,
        agent_totals.n_after_cc,
        agent_totals.n_after_cd,
        agent_totals.n_after_dc,
        agent_totals.n_after_dd,
        agent_totals.n_c_after_cc,
        agent_totals.n_c_after_cd,
        agent_totals.n_c_after_dc,
        agent_totals.n_c_after_dd,
        agent_totals.first_defection_round,
        -- never defects before the opponent has defected in an earlier round: defecting in
        -- the same round as the opponent's first defection is not nice
        coalesce(
            agent_totals.first_defection_round > agent_totals.opponent_first_defection_round,
            agent_totals.first_defection_round is null
        ) as is_nice,
        agent_totals.longest_defection_streak,
        agent_totals.is_llm,
        agent_totals.is_validity_recorded,
        agent_totals.cooperation_rate_valid,
        case
            when agent_totals.is_llm and agent_totals.is_validity_recorded
                then agent_totals.n_invalid_moves
        end as n_fallback_moves,
        case
            when agent_totals.is_llm and agent_totals.is_validity_recorded
                then agent_totals.n_invalid_moves / agent_totals.rounds_played
        end as fallback_move_share,
        case
            when agent_totals.is_llm
                then agent_totals.n_invalid_attempts / nullif(agent_totals.n_attempts, 0)
        end as invalid_attempt_share,
        case when agent_totals.is_llm then agent_totals.n_truncated_rounds end
            as n_truncated_rounds
    from agent_totals
),

with_shares as (
    select
        *,
        is_nice::integer as nice_rate,
        n_rounds - coalesce(n_fallback_moves, 0) as n_valid_moves
    from agent_metrics
)

select * from with_shares
