{{ config(materialized='table') }}

-- The design of the two logistic fits of the pairwise verdicts
-- (int_arena_pairwise_style_parameters: fit style_controlled and fit joint) in long form, one
-- row per fit, replicate, verdict and parameter with a non-zero value x: +1 for the first
-- player's strength, -1 for the second's, the feature's difference (first minus second) for
-- a feature; in the joint fit also 1 for the judge's position term, +1 (-1) for its self
-- term when it wrote the first (second) answer, and on a verdict shown with the authors'
-- names +1 for the first player's name term, -1 for the second's. P(first wins) =
-- sigmoid(sum x * estimate). Each row carries its verdict's outcome y (1, 0.5 a tie, 0) and
-- weight in the replicate: the verdict's weight (strong_weight for a strong verdict) times
-- the times its question was drawn (int_arena_pairwise_draws; replicate 0 takes every
-- question once). The style-controlled fit reads the scored verdicts in every replicate; the
-- joint fit every verdict, in replicate 0 only (its intervals come from the sandwich over
-- questions, int_arena_pairwise_joint_covariance: a refit per replicate of its dozens of
-- parameters cost minutes). A covariate more is a row more per verdict here, the fits
-- unchanged.

with verdicts as (
    select * from {{ ref('int_arena_pairwise_fit_verdicts') }}
),

features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
),

parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where parameter_index is not null
),

draws as (
    select * from {{ ref('int_arena_pairwise_draws') }}
),

-- (fit, verdict, parameter kind, parameter name, value): every term a verdict holds
terms as (
    select
        fit,
        verdict_id,
        'player' as parameter_kind,
        first_player as parameter,
        1.0 as design_value
    from verdicts
    union all
    select
        fit,
        verdict_id,
        'player' as parameter_kind,
        second_player as parameter,
        -1.0 as design_value
    from verdicts
    union all
    select
        verdicts.fit,
        verdicts.verdict_id,
        'feature' as parameter_kind,
        features.feature as parameter,
        features.feature_difference as design_value
    from verdicts
    inner join features
        on verdicts.verdict_id = features.verdict_id
    where features.feature_difference != 0
    union all
    select
        fit,
        verdict_id,
        'position' as parameter_kind,
        judge as parameter,
        1.0 as design_value
    from verdicts
    where fit = 'joint'
    union all
    select
        fit,
        verdict_id,
        'self' as parameter_kind,
        judge as parameter,
        self_side::double as design_value
    from verdicts
    where fit = 'joint' and self_side != 0
    union all
    select
        fit,
        verdict_id,
        'name' as parameter_kind,
        first_player as parameter,
        1.0 as design_value
    from verdicts
    where fit = 'joint' and is_named
    union all
    select
        fit,
        verdict_id,
        'name' as parameter_kind,
        second_player as parameter,
        -1.0 as design_value
    from verdicts
    where fit = 'joint' and is_named
),

verdict_values as (
    select
        verdicts.fit,
        verdicts.verdict_id,
        verdicts.question_id,
        verdicts.weight,
        verdicts.first_score,
        parameters.parameter_index,
        terms.design_value
    from terms
    inner join verdicts
        on terms.fit = verdicts.fit and terms.verdict_id = verdicts.verdict_id
    inner join parameters
        on
            terms.fit = parameters.fit
            and terms.parameter_kind = parameters.parameter_kind
            and terms.parameter = parameters.parameter
),

replicate_weights as (
    select
        0 as replicate,
        question_id,
        1 as n_drawn
    from (select distinct question_id from verdicts) as observed
    union all
    select
        replicate,
        question_id,
        n_drawn
    from draws
),

design as (
    select
        verdict_values.fit,
        replicate_weights.replicate,
        verdict_values.verdict_id,
        verdict_values.parameter_index,
        verdict_values.design_value,
        verdict_values.first_score as outcome,
        (verdict_values.weight * replicate_weights.n_drawn)::double as verdict_weight
    from verdict_values
    inner join replicate_weights
        on verdict_values.question_id = replicate_weights.question_id
    -- the joint fit is fitted once; its intervals come from int_arena_pairwise_joint_covariance
    where verdict_values.fit = 'style_controlled' or replicate_weights.replicate = 0
)

select * from design
