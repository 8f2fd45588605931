-- Which verdicts each logistic fit of the pairwise verdicts reads, one row per fit and
-- verdict: the style-controlled Bradley-Terry fit (fit style_controlled) the scored ones, the
-- joint model (fit joint) every valid one, the self and name arms' too. A verdict on a
-- separated player's answer (int_arena_pairwise_bounds) is left out of both: the player has
-- no finite strength, and leaving its verdicts out is the limit of the fit as its strength
-- runs off (they then tell nothing about the others).

with features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
),

separated as (
    select player from {{ ref('int_arena_pairwise_bounds') }}
    where is_separated
),

verdicts as (
    select distinct
        verdict_id,
        question_id,
        judge,
        first_player,
        second_player,
        weight,
        first_score,
        is_scored,
        is_named,
        self_side
    from features
    where
        first_player not in (select separated.player from separated)
        and second_player not in (select separated.player from separated)
),

fit_verdicts as (
    select
        'style_controlled' as fit,
        * exclude (is_scored)
    from verdicts
    where is_scored
    union all
    select
        'joint' as fit,
        * exclude (is_scored)
    from verdicts
)

select * from fit_verdicts
