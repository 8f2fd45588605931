{{ config(location=mart_location()) }}

with

match_scores as (
    select * from {{ ref('tournament_match_scores') }}
    -- as in Axelrod's ResultSet, an agent's games against itself do not count
    where not is_self_play
),

per_replicate as (
    select
        agent,
        replicate,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        avg(score_per_round order by match_id, side) as score_per_round
    from match_scores
    group by agent, replicate
),

replicate_ranks as (
    select
        agent,
        replicate,
        rank() over (partition by replicate order by score_per_round desc) as rank_in_replicate
    from per_replicate
),

median_ranks as (
    select
        agent,
        median(rank_in_replicate) as median_rank
    from replicate_ranks
    group by agent
),

totals as (
    select
        agent,
        count(*) as n_matches,
        avg(score_per_round order by match_id, side) as mean_score_per_round,
        count(*) filter (where is_win) as n_wins,
        sum(cooperation_rate * n_rounds order by match_id, side) / sum(n_rounds)
            as cooperation_rate
    from match_scores
    group by agent
),

standings as (
    select
        totals.agent,
        totals.n_matches,
        totals.mean_score_per_round,
        totals.n_wins,
        median_ranks.median_rank,
        totals.cooperation_rate,
        rank() over (order by totals.mean_score_per_round desc) as overall_rank
    from totals
    inner join median_ranks
        on totals.agent = median_ranks.agent
)

select * from standings
order by overall_rank, agent
