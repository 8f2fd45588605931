{{ config(location=mart_location()) }}

with

aggregates as (
    select * from {{ ref('pd_aggregates') }}
),

agent_rows as (
    {% for side in ['a', 'b'] %}
    select
        level,
        condition,
        replicate,
        'agent_{{ side }}' as side,
        agent_{{ side }}_name as agent_name,
        agent_{{ side }}_kind as agent_kind,
        n_replicates,
        cooperation_rate_{{ side }} as cooperation_rate,
        payoff_per_round_{{ side }} as payoff_per_round,
        total_payoff_{{ side }} as total_payoff,
        retaliation_rate_{{ side }} as retaliation_rate,
        forgiveness_rate_{{ side }} as forgiveness_rate,
        exploitability_payoff_gap_{{ side }} as exploitability_payoff_gap,
        cooperation_rate_valid_{{ side }} as cooperation_rate_valid,
        fallback_move_share_{{ side }} as fallback_move_share,
        invalid_attempt_share_{{ side }} as invalid_attempt_share,
        n_fallback_moves_{{ side }} as n_fallback_moves,
        n_truncated_rounds_{{ side }} as n_truncated_rounds,
        n_rounds,
        first_defection_round_{{ side }} as first_defection_round,
        is_nice_{{ side }} as is_nice,
        nice_rate_{{ side }} as nice_rate,
        p_c_after_cc_{{ side }} as p_c_after_cc,
        p_c_after_cd_{{ side }} as p_c_after_cd,
        p_c_after_dc_{{ side }} as p_c_after_dc,
        p_c_after_dd_{{ side }} as p_c_after_dd
    from aggregates
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from agent_rows
order by level, condition, replicate, side
