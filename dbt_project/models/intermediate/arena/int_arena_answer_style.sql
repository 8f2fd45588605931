{{ config(materialized='table') }}

-- The style of every answer as its judges saw it (shown_text), one row per answer and
-- feature of the catalogue (the seed style_features): its pattern counted in the text,
-- divided by its unit. Words are counted as Python's str.split counts them (runs of
-- non-space), per 100 words; markdown elements as counts: headers (a line opening with 1-6
-- #), list items (a line opening with -, *, + or a number and . or ), then a space), bold
-- spans (**x** or __x__) and code blocks (a line opening with ```, two per block). The
-- style covariates of the joint model (int_arena_joint_design) and of the style-controlled
-- Bradley-Terry fits (int_arena_pairwise_style_features); an answer without text has NULL
-- values.

with answers as (
    select * from {{ ref('stg_arena_answers') }}
),

features as (
    select * from {{ ref('style_features') }}
),

answer_values as (
    select
        answers.answer_id,
        answers.question_id,
        answers.answerer,
        features.feature_order,
        features.feature,
        features.feature_label,
        features.feature_unit,
        len(regexp_extract_all(answers.shown_text, features.pattern)) / features.unit_size
            as feature_value
    from answers
    cross join features
)

select * from answer_values
