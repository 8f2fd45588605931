{{ config(materialized='table') }}

-- The style of the two answers of every scored verdict, as differences (first minus
-- second), one row per verdict and feature: the long design table the style-controlled
-- Bradley-Terry fit reads (int_arena_pairwise_style_design). A feature is a row of
-- `features`: a pattern counted in the answer's text as the judge was shown it, divided by
-- its unit. Words are counted as Python's str.split counts them (runs of non-space), per
-- 100 words; markdown elements as counts: headers (a line opening with 1-6 #), list items
-- (a line opening with -, *, + or a number and . or ), then a space), bold spans (**x** or
-- __x__) and code blocks (a line opening with ```, two per block). A verdict whose answer
-- text is unknown has a NULL value.

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

answers as (
    select * from {{ ref('stg_arena_answers') }}
),

features as (
    select catalogue.* from (
        values
        (1, 'answer_length', 'answer length', 'per 100 words', '\S+', 100.0),
        (2, 'headers', 'markdown headers', 'per header', '(?m)^[ \t]*#{1,6}[ \t]', 1.0),
        (
            3, 'list_items', 'markdown list items', 'per list item',
            '(?m)^[ \t]*([-*+]|[0-9]+[.)])[ \t]', 1.0
        ),
        (4, 'bold', 'markdown bold spans', 'per bold span', '\*\*[^*\n]+\*\*|__[^_\n]+__', 1.0),
        (5, 'code_blocks', 'markdown code blocks', 'per code block', '(?m)^[ \t]*```', 2.0)
    ) as catalogue (feature_order, feature, feature_label, feature_unit, pattern, unit_size)
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

answer_values as (
    select
        answers.answer_id,
        features.feature,
        len(regexp_extract_all(answers.shown_text, features.pattern)) / features.unit_size
            as feature_value
    from answers
    cross join features
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
    left join answer_values as first_values
        on
            scored.first_answer_id = first_values.answer_id
            and features.feature = first_values.feature
    left join answer_values as second_values
        on
            scored.second_answer_id = second_values.answer_id
            and features.feature = second_values.feature
)

select * from differences
