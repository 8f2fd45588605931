{{ config(location=mart_location()) }}

with

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
),

finished_matches as (
    select *
    from match_metrics
    where match_status = 'ok'
),

-- each finished match seen from either side: the per-match totals, not the rounds again
match_scores as (
    {% for own, opp in [('a', 'b'), ('b', 'a')] %}
    select
        match_id,
        'agent_{{ own }}' as side,
        condition,
        replicate,
        name_{{ own }} as agent,
        name_{{ opp }} as opponent,
        name_a = name_b as is_self_play,
        rounds_played as n_rounds,
        total_payoff_{{ own }} as score,
        total_payoff_{{ opp }} as opponent_score,
        payoff_per_round_{{ own }} as score_per_round,
        cooperation_rate_{{ own }} as cooperation_rate,
        -- NULL for a policy: it has no replies to fail
        n_fallback_moves_{{ own }} as n_fallback_moves,
        total_payoff_{{ own }} > total_payoff_{{ opp }} as is_win
    from finished_matches
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from match_scores
-- a fixed row order: the file is the same on every build
order by match_id, side
