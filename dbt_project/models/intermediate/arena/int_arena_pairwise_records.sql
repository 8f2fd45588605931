-- Each player's scored verdicts: how many, the weighted share it won (a tie half, a strong
-- verdict strong_weight verdicts), and the same against the baseline.

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

scored_sides as (
    select
        first_player as player,
        second_player as opponent,
        weight,
        first_score as score
    from outcomes
    where is_scored
    union all
    select
        second_player as player,
        first_player as opponent,
        weight,
        1 - first_score as score
    from outcomes
    where is_scored
),

verdict_counts as (
    select
        scored_sides.player,
        count(*) as n_verdicts,
        sum(scored_sides.weight * scored_sides.score) / sum(scored_sides.weight) as win_rate,
        count(*)
        filter (where scored_sides.opponent = scoring.pairwise_baseline) as n_vs_baseline,
        sum(scored_sides.weight * scored_sides.score)
        filter (where scored_sides.opponent = scoring.pairwise_baseline)
        / sum(scored_sides.weight)
        filter (
            where scored_sides.opponent = scoring.pairwise_baseline
        ) as observed_win_rate_vs_baseline
    from scored_sides
    cross join scoring
    group by scored_sides.player
)

select * from verdict_counts
