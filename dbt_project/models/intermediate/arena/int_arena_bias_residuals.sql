{{ config(materialized='table') }}

-- The judge x player table taken apart, for the observed labels (permutation 0) and for
-- every permutation of int_arena_bias_permutations: pair_mean (the pair's mean centred
-- deviation) = judge_effect + player_effect + residual, by one sweep of median polish.
-- judge_effect is the median of the judge's pair means over the players it judged (a judge
-- who is off the others everywhere, or whose offset absorbed part of a favour, favours
-- nobody); player_effect is the median over the player's judges of what is left (a
-- favouring judge lifts the consensus on the favoured player's answers, so every other
-- judge of that player looks a little harsh; the median takes that common shift out and
-- leaves the favouring judge's own excess). Medians rather than means, so that one or two
-- colluding pairs in a row or a column do not move the effects the others are measured
-- against. The tested statistic is the residual over its standard error (studentized, so
-- that a pair whose deviations are more variable than the judge's others, e.g. less often
-- clamped at 0 or 10, is not flagged for its spread).

with deviations as (
    select * from {{ ref('int_arena_bias_deviations') }}
),

permuted as (
    select * from {{ ref('int_arena_bias_permutations') }}
),

judge_variances as (
    select
        judge,
        coalesce(var_samp(centred_deviation), 0) as judge_variance
    from deviations
    group by judge
),

observed as (
    {{ arena_bias_cells('deviations', 0) }}
),

pair_means as (
    select * from observed
    union all
    select * from permuted
),

judge_swept as (
    select
        *,
        median(pair_mean) over (partition by permutation, judge) as judge_effect
    from pair_means
),

player_swept as (
    select
        *,
        median(pair_mean - judge_effect) over (partition by permutation, player)
            as player_effect
    from judge_swept
),

-- The pair's variance with one pseudo-answer at the judge's variance, so that a pair of one
-- answer, or of answers that all deviate alike, still has a standard error.
with_errors as (
    select
        player_swept.*,
        player_swept.pair_mean - player_swept.judge_effect - player_swept.player_effect
            as residual,
        sqrt(
            (
                (player_swept.n_answers - 1) * player_swept.pair_variance
                + judge_variances.judge_variance
            )
            / player_swept.n_answers / player_swept.n_answers
        ) as standard_error
    from player_swept
    inner join judge_variances
        on player_swept.judge = judge_variances.judge
),

final as (
    select
        judge,
        player,
        permutation,
        n_answers,
        pair_mean,
        pair_variance,
        judge_effect,
        player_effect,
        residual,
        standard_error,
        coalesce(residual / nullif(standard_error, 0), 0) as studentized_residual
    from with_errors
)

select * from final
