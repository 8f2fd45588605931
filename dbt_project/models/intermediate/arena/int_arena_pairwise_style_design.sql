{{ config(materialized='table') }}

-- The design of the style-controlled Bradley-Terry fit in long form, one row per replicate,
-- verdict and parameter (int_arena_pairwise_style_parameters) with a non-zero value x:
-- +1 for the first player's strength, -1 for the second's, the feature's difference (first
-- minus second) for a feature. P(first wins) = sigmoid(sum x * estimate). Each row carries
-- its verdict's outcome y (1, 0.5 a tie, 0) and weight in the replicate: the verdict's
-- weight (strong_weight for a strong verdict) times the times its question was drawn
-- (int_arena_pairwise_draws; replicate 0 takes every question once). A covariate more is a
-- row more per verdict here, the fit unchanged.

with features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
),

all_parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
),

parameters as (
    select * from all_parameters
    where parameter_index is not null
),

fitted_players as (
    select parameter as player
    from all_parameters
    where parameter_kind = 'player'
),

draws as (
    select * from {{ ref('int_arena_pairwise_draws') }}
),

-- a verdict on a separated player's answer is left out (no row of its players)
verdicts as (
    select distinct
        verdict_id,
        question_id,
        first_player,
        second_player,
        weight,
        first_score
    from features
    where
        first_player in (select fitted_players.player from fitted_players)
        and second_player in (select fitted_players.player from fitted_players)
),

verdict_values as (
    select
        verdicts.verdict_id,
        verdicts.question_id,
        verdicts.weight,
        verdicts.first_score,
        parameters.parameter_index,
        1.0 as design_value
    from verdicts
    inner join parameters
        on verdicts.first_player = parameters.parameter and parameters.parameter_kind = 'player'
    union all
    select
        verdicts.verdict_id,
        verdicts.question_id,
        verdicts.weight,
        verdicts.first_score,
        parameters.parameter_index,
        -1.0 as design_value
    from verdicts
    inner join parameters
        on verdicts.second_player = parameters.parameter and parameters.parameter_kind = 'player'
    union all
    select
        features.verdict_id,
        features.question_id,
        features.weight,
        features.first_score,
        parameters.parameter_index,
        features.feature_difference as design_value
    from features
    inner join verdicts
        on features.verdict_id = verdicts.verdict_id
    inner join parameters
        on features.feature = parameters.parameter and parameters.parameter_kind = 'feature'
    where features.feature_difference != 0
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
        replicate_weights.replicate,
        verdict_values.verdict_id,
        verdict_values.parameter_index,
        verdict_values.design_value,
        verdict_values.first_score as outcome,
        (verdict_values.weight * replicate_weights.n_drawn)::double as verdict_weight
    from verdict_values
    inner join replicate_weights
        on verdict_values.question_id = replicate_weights.question_id
)

select * from design
