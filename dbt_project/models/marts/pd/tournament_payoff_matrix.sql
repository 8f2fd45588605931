{{ config(location=run_file('tournament_payoff_matrix.parquet')) }}

with

match_scores as (
    select * from {{ ref('tournament_match_scores') }}
),

payoff_matrix as (
    select
        agent,
        opponent,
        count(distinct match_id) as n_matches,
        avg(score_per_round) as mean_score_per_round,
        avg(opponent_score / n_rounds) as mean_opponent_score_per_round,
        avg(cooperation_rate) as cooperation_rate
    from match_scores
    group by agent, opponent
)

select * from payoff_matrix
