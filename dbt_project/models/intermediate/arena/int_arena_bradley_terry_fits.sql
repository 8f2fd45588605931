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
-- With tie_model davidson a tie is Davidson's (1970): P(i wins) = p_i / D, P(tie) =
-- nu sqrt(p_i p_j) / D, D = p_i + p_j + nu sqrt(p_i p_j). Each step sets p_i = (W_i + T_i / 2)
-- p_i / sum_j n_ij (p_i + nu sqrt(p_i p_j) / 2) / D_ij and nu = T / sum_{i<j} n_ij
-- sqrt(p_i p_j) / D_ij from the previous step (Davidson's own iteration, the likelihood's
-- stationary equations), 300 steps (it converges more slowly); nu = 0 is the step above.

{%- set bt_iterations = 100 %}
{%- set bt_tolerance = 1e-4 %}

with recursive outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

draws as (
    select * from {{ ref('int_arena_pairwise_draws') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
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
        weight * first_score as wins,
        (first_score = 0.5)::integer as tie_count
    from scored
    union all
    select
        question_id,
        second_player as player,
        first_player as opponent,
        weight,
        weight * (1 - first_score) as wins,
        (first_score = 0.5)::integer as tie_count
    from scored
),

edges as (
    select
        replicate_weights.replicate,
        both_sides.player,
        both_sides.opponent,
        sum(replicate_weights.n_drawn * both_sides.weight)::double as n_games,
        sum(replicate_weights.n_drawn * both_sides.wins)::double as wins,
        sum(replicate_weights.n_drawn * both_sides.tie_count)::double as tie_count
    from both_sides
    inner join replicate_weights
        on both_sides.question_id = replicate_weights.question_id
    group by replicate_weights.replicate, both_sides.player, both_sides.opponent
),

-- each player's weighted wins in a replicate (a tie counting half), and the replicate's ties
bt_wins as (
    select
        edges.replicate,
        edges.player,
        sum(edges.wins) as total_wins,
        sum(sum(edges.tie_count)) over (partition by edges.replicate) / 2 as n_ties,
        any_value(scoring.pairwise_tie_model) = 'davidson' as is_davidson
    from edges
    cross join scoring
    group by edges.replicate, edges.player
),

-- each pass reads the previous step's strengths and tie parameter (the working table) and
-- writes the next; with tie_parameter 0 (ties as half wins) the step is Hunter's MM step
bt_steps as (
    select
        0 as step,
        replicate,
        player,
        1.0::double as strength,
        case when is_davidson and n_ties > 0 then 1.0 else 0.0 end::double as tie_parameter
    from bt_wins
    union all
    select
        raw_step.step,
        raw_step.replicate,
        raw_step.player,
        raw_step.strength / exp(
            avg(case when raw_step.strength > 0 then ln(raw_step.strength) end)
                over (partition by raw_step.replicate)
        ) as strength,
        case
            when raw_step.tie_parameter = 0 then 0.0
            else
                raw_step.n_ties
                / (sum(raw_step.tie_mass) over (partition by raw_step.replicate) / 2)
        end as tie_parameter
    from (
        select
            any_value(step) + 1 as step,
            replicate,
            player,
            any_value(tie_parameter) as tie_parameter,
            any_value(n_ties) as n_ties,
            case
                when any_value(tie_parameter) = 0
                    then any_value(total_wins) / sum(n_games / (own_strength + other_strength))
                when any_value(total_wins) = 0 then 0.0
                else any_value(total_wins * own_strength) / sum(
                    n_games * (own_strength + tie_parameter / 2 * root)
                    / (own_strength + other_strength + tie_parameter * root)
                )
            end as strength,
            sum(n_games * root / (own_strength + other_strength + tie_parameter * root))
                as tie_mass
        from (
            select
                own.step,
                edges.replicate,
                edges.player,
                edges.n_games,
                own.strength as own_strength,
                other.strength as other_strength,
                own.tie_parameter,
                wins.total_wins,
                wins.n_ties,
                sqrt(own.strength * other.strength) as root
            from edges
            inner join bt_wins as wins
                on edges.replicate = wins.replicate and edges.player = wins.player
            inner join bt_steps as own
                on edges.replicate = own.replicate and edges.player = own.player
            inner join bt_steps as other
                on edges.replicate = other.replicate and edges.opponent = other.player
            where own.step < {{ bt_iterations }} * case when wins.is_davidson then 3 else 1 end
        ) as step_terms
        group by replicate, player
    ) as raw_step
),

bt_changes as (
    select
        final_step.replicate,
        final_step.player,
        round(final_step.strength, 12) as strength,
        round(final_step.tie_parameter, 12) as tie_parameter,
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
            and previous_step.step = final_step.step - 1
    cross join scoring
    where
        final_step.step
        = {{ bt_iterations }} * case when scoring.pairwise_tie_model = 'davidson' then 3 else 1 end
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
