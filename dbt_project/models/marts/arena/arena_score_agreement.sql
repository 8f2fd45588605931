{{ config(location=mart_location()) }}

-- How far the two rankings of a run that has both agree: the players' absolute scores
-- (leaderboard, ranked players only) against their Bradley-Terry strengths
-- (bradley_terry). Spearman's rho is the Pearson correlation of the average ranks;
-- Kendall's tau-b counts concordant and discordant pairs of players, ties corrected. Both
-- are rounded to 1e-12, so that equal rankings give exactly 1.

with scores as (
    select * from {{ ref('arena_leaderboard') }}
),

strengths as (
    select * from {{ ref('arena_bradley_terry') }}
),

both_rankings as (
    select
        scores.player,
        scores.score,
        strengths.strength,
        rank() over (order by scores.score)
        + (count(*) over (partition by scores.score) - 1) / 2.0 as score_rank,
        rank() over (order by strengths.strength)
        + (count(*) over (partition by strengths.strength) - 1) / 2.0 as strength_rank
    from scores
    inner join strengths
        on scores.player = strengths.player
    where scores.has_enough_data and scores.score is not null
),

player_pairs as (
    select
        sign(first_player.score - second_player.score)
        * sign(first_player.strength - second_player.strength) as concordance,
        first_player.score = second_player.score as is_score_tie,
        first_player.strength = second_player.strength as is_strength_tie
    from both_rankings as first_player
    inner join both_rankings as second_player
        on first_player.player < second_player.player
),

kendall as (
    select
        sum(concordance) as concordance_sum,
        count(*) as n_pairs,
        count(*) filter (where is_score_tie) as n_score_ties,
        count(*) filter (where is_strength_tie) as n_strength_ties
    from player_pairs
),

spearman as (
    select
        count(*) as n_players,
        round(corr(score_rank, strength_rank), 12) as spearman
    from both_rankings
),

final as (
    select
        spearman.n_players,
        spearman.spearman,
        round(
            kendall.concordance_sum
            / nullif(
                sqrt(
                    (kendall.n_pairs - kendall.n_score_ties)::double
                    * (kendall.n_pairs - kendall.n_strength_ties)
                ),
                0
            ), 12
        ) as kendall_tau
    from spearman
    cross join kendall
)

select * from final
