{{ config(materialized='table') }}

-- The style of the two answers of every valid verdict, as differences (first minus
-- second), one row per verdict and feature of the seed style_features (counted by
-- int_arena_answer_style): the long design table the style-controlled Bradley-Terry fits
-- read (int_arena_pairwise_style_design). A verdict whose answer text is unknown has a NULL value.
-- Each row says who judged, whether the verdict is scored, whether the authors were named,
-- and self_side: +1 when the judge wrote the first answer, -1 the second, 0 neither (the
-- style-controlled fit reads the scored verdicts, the joint fit every one).

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

styles as (
    select * from {{ ref('int_arena_answer_style') }}
),

-- every feature of the catalogue, so that a verdict on answers of unknown text (an import
-- without them) has its rows, NULL valued
features as (
    select
        feature_order,
        feature,
        feature_label,
        feature_unit
    from {{ ref('style_features') }}
),

verdicts as (
    select
        row_number() over (
            order by pair_id, judge, order_index, is_named, first_player, verdict
        ) as verdict_id,
        question_id,
        judge,
        first_player,
        second_player,
        first_answer_id,
        second_answer_id,
        weight,
        first_score,
        is_scored,
        is_named,
        case judge when first_player then 1 when second_player then -1 else 0 end as self_side
    from outcomes
),

differences as (
    select
        verdicts.verdict_id,
        verdicts.question_id,
        verdicts.judge,
        verdicts.first_player,
        verdicts.second_player,
        verdicts.weight,
        verdicts.first_score,
        verdicts.is_scored,
        verdicts.is_named,
        verdicts.self_side,
        features.feature_order,
        features.feature,
        features.feature_label,
        features.feature_unit,
        first_values.feature_value as first_value,
        second_values.feature_value as second_value,
        first_values.feature_value - second_values.feature_value as feature_difference
    from verdicts
    cross join features
    left join styles as first_values
        on
            verdicts.first_answer_id = first_values.answer_id
            and features.feature = first_values.feature
    left join styles as second_values
        on
            verdicts.second_answer_id = second_values.answer_id
            and features.feature = second_values.feature
)

select * from differences
