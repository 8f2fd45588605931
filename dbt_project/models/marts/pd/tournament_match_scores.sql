{{ config(location=mart_location('tournament_match_scores.parquet')) }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
),

match_scores as (
    select
        match_id,
        side,
        condition,
        replicate,
        agent,
        opponent,
        is_self_play,
        count(*) as n_rounds,
        sum(payoff) as score,
        sum(opponent_payoff) as opponent_score,
        sum(payoff) / count(*) as score_per_round,
        avg((action = 'C')::double) as cooperation_rate,
        sum(payoff) > sum(opponent_payoff) as is_win
    from agent_rounds
    group by match_id, side, condition, replicate, agent, opponent, is_self_play
)

select * from match_scores
-- a fixed row order: the file is the same on every build
order by match_id, side
