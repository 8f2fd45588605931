{{ config(materialized='table') }}

-- The style of the two answers of every scored verdict, as differences (first minus
-- second), one row per verdict and feature of int_arena_answer_style (which counts them):
-- the long design table the style-controlled Bradley-Terry fit reads
-- (int_arena_pairwise_style_design). A verdict whose answer text is unknown has a NULL value.

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

styles as (
    select * from {{ ref('int_arena_answer_style') }}
),

features as (
    select distinct
        feature_order,
        feature,
        feature_label,
        feature_unit
    from styles
),

scored as (
    select
        row_number() over (
            order by pair_id, judge, order_index, first_player, verdict
        ) as verdict_id,
        question_id,
        first_player,
        second_player,
        first_answer_id,
        second_answer_id,
        weight,
        first_score
    from outcomes
    where is_scored
),

differences as (
    select
        scored.verdict_id,
        scored.question_id,
        scored.first_player,
        scored.second_player,
        scored.weight,
        scored.first_score,
        features.feature_order,
        features.feature,
        features.feature_label,
        features.feature_unit,
        first_values.feature_value as first_value,
        second_values.feature_value as second_value,
        first_values.feature_value - second_values.feature_value as feature_difference
    from scored
    cross join features
    left join styles as first_values
        on
            scored.first_answer_id = first_values.answer_id
            and features.feature = first_values.feature
    left join styles as second_values
        on
            scored.second_answer_id = second_values.answer_id
            and features.feature = second_values.feature
)

select * from differences
