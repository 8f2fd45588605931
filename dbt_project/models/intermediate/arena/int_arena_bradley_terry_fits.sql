{{ config(materialized='table') }}

-- Bradley-Terry strengths of the players from the scored pairwise verdicts: replicate 0 on
-- the verdicts as they are, replicates 1..bootstrap_n on the questions resampled by
-- int_arena_pairwise_draws (a question drawn k times counts its verdicts k times).
--
-- The model, P(i beats j) = p_i / (p_i + p_j), is fitted separately in every replicate by
-- Hunter's (2004) minorization-maximization steps: each step sets
-- p_i = W_i / sum_j n_ij / (p_i + p_j) from the previous step's strengths, then divides
-- every strength of the replicate by their geometric mean (over the positive ones), so the
-- strengths of a replicate have geometric mean 1. The steps (bt_iterations, 100) run from
-- p = 1 as a recursive CTE; the largest change of ln p in the last step is kept in
-- bt_last_change. Strengths are rounded to 1e-12: digits below that are the noise of
-- summing in another order, and two players with the same record must tie, not be told
-- apart by that noise. A player that never won has strength 0 after the first step. The
-- fit of a replicate is_converged when bt_last_change is at most bt_tolerance (1e-4): a
-- field in which some players won (or lost) every verdict against the rest has no finite
-- maximum, and its steps keep moving, by about 1 / step.

{%- set bt_iterations = 100 %}
{%- set bt_tolerance = 1e-4 %}

with recursive outcomes as (
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

-- each player's weighted wins in a replicate (a tie counting half)
bt_wins as (
    select
        replicate,
        player,
        sum(wins) as total_wins
    from edges
    group by replicate, player
),

-- each pass reads the previous step's strengths (the working table) and writes the next
bt_steps as (
    select
        0 as step,
        replicate,
        player,
        1.0::double as strength
    from bt_wins
    union all
    select
        raw_step.step,
        raw_step.replicate,
        raw_step.player,
        raw_step.strength / exp(
            avg(case when raw_step.strength > 0 then ln(raw_step.strength) end)
                over (partition by raw_step.replicate)
        ) as strength
    from (
        select
            any_value(own.step) + 1 as step,
            edges.replicate,
            edges.player,
            any_value(wins.total_wins)
            / sum(edges.n_games / (own.strength + other.strength)) as strength
        from edges
        inner join bt_wins as wins
            on edges.replicate = wins.replicate and edges.player = wins.player
        inner join bt_steps as own
            on edges.replicate = own.replicate and edges.player = own.player
        inner join bt_steps as other
            on edges.replicate = other.replicate and edges.opponent = other.player
        where own.step < {{ bt_iterations }}
        group by edges.replicate, edges.player
    ) as raw_step
),

bt_changes as (
    select
        final_step.replicate,
        final_step.player,
        round(final_step.strength, 12) as strength,
        max(
            abs(
                ln(greatest(final_step.strength, 1e-300))
                - ln(greatest(previous_step.strength, 1e-300))
            )
        ) over (partition by final_step.replicate) as bt_last_change
    from bt_steps as final_step
    inner join bt_steps as previous_step
        on
            final_step.replicate = previous_step.replicate
            and final_step.player = previous_step.player
            and previous_step.step = {{ bt_iterations - 1 }}
    where final_step.step = {{ bt_iterations }}
),

bt_fit as (
    select
        *,
        bt_last_change <= {{ bt_tolerance }} as is_converged
    from bt_changes
)


select
    bt_fit.*,
    rank() over (
        partition by bt_fit.replicate order by bt_fit.strength desc
    ) as rank
from bt_fit
