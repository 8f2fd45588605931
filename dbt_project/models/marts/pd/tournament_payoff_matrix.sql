{{ config(location=mart_location()) }}

with

match_scores as (
    select * from {{ ref('tournament_match_scores') }}
),

payoff_matrix as (
    select
        agent,
        opponent,
        count(distinct match_id) as n_matches,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        avg(score_per_round order by match_id, side) as mean_score_per_round,
        avg(opponent_score / n_rounds order by match_id, side) as mean_opponent_score_per_round,
        avg(cooperation_rate order by match_id, side) as cooperation_rate
    from match_scores
    group by agent, opponent
)

select * from payoff_matrix
order by agent, opponent
