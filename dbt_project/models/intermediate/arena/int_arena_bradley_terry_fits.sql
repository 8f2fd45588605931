{{ config(materialized='table') }}

-- Bradley-Terry strengths of the players from the scored pairwise verdicts: replicate 0 on
-- the verdicts as they are, replicates 1..bootstrap_n on the questions resampled by
-- int_arena_pairwise_draws (a question drawn k times counts its verdicts k times).

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

draws as (
    select * from {{ ref('int_arena_pairwise_draws') }}
),

scored as (
    select
        question_id,
        first_player,
        second_player,
        weight,
        first_score
    from outcomes
    where is_scored
),

replicate_weights as (
    select
        0 as replicate,
        question_id,
        1 as n_drawn
    from (select distinct question_id from scored) as observed
    union all
    select
        replicate,
        question_id,
        n_drawn
    from draws
),

both_sides as (
    select
        question_id,
        first_player as player,
        second_player as opponent,
        weight,
        weight * first_score as wins
    from scored
    union all
    select
        question_id,
        second_player as player,
        first_player as opponent,
        weight,
        weight * (1 - first_score) as wins
    from scored
),

edges as (
    select
        replicate_weights.replicate,
        both_sides.player,
        both_sides.opponent,
        sum(replicate_weights.n_drawn * both_sides.weight)::double as n_games,
        sum(replicate_weights.n_drawn * both_sides.wins)::double as wins
    from both_sides
    inner join replicate_weights
        on both_sides.question_id = replicate_weights.question_id
    group by replicate_weights.replicate, both_sides.player, both_sides.opponent
),

{{ arena_bradley_terry('edges') }}

select
    bt_fit.*,
    rank() over (
        partition by bt_fit.replicate order by bt_fit.strength desc
    ) as rank
from bt_fit
