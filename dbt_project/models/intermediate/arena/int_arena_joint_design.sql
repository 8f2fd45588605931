{{ config(materialized='table') }}

-- The design of the joint model of absolute judging (docs/arena_ratings.md, "One model for
-- the biases"): every valid judgement of a valid answer to a kept question, in every arm
-- (plain, named, fixed_order), is one observation
--   score = question + quality(answerer) + leniency(judge) + arm(judge) + style . b + noise.
-- One row per observation and parameter, the parameter's value in it:
--   quality <player>: 1 for the player's answers; the first player by name is the reference,
--     held at 0 (is_reference, never fitted);
--   leniency <judge>: 1 for the judge's judgements; the first judge by name is the reference;
--   named <judge>, fixed_order <judge>: 1 for the judge's judgements in that arm (names shown;
--     one fixed order), plain being the reference: each judge's own name and position bias;
--   style <feature>: the answer's value of each feature of int_arena_answer_style
--     (answer_length per 100 words, headers, list_items, bold, code_blocks);
-- and the response, parameter_index 0, the score (0..10). The question effects are not
-- parameters: every value, the score included, is taken minus its mean over the question's
-- observations (the within transformation, which gives the same fit as a parameter per
-- question). A parameter whose centred values are all 0 (no variation within a question:
-- an arm never played, a markdown feature no answer uses) is left out, and so is a style
-- feature of an answer whose text is unknown (has_unknown_value), with a row in
-- int_arena_joint_fits saying so.

with judgments as (
    select * from {{ ref('stg_arena_judgment_arms') }}
),

answers as (
    select * from {{ ref('stg_arena_answers') }}
),

styles as (
    select * from {{ ref('int_arena_answer_style') }}
),

questions as (
    select * from {{ ref('int_arena_question_quality') }}
),

observations as (
    select
        judgments.answer_id || '/' || judgments.judge || '/' || judgments.arm as observation_id,
        judgments.answer_id,
        judgments.question_id,
        judgments.judge,
        judgments.arm,
        judgments.score,
        answers.answerer
    from judgments
    inner join answers
        on judgments.answer_id = answers.answer_id
    inner join questions
        on judgments.question_id = questions.question_id and questions.is_kept
    where judgments.is_valid and answers.is_valid and not answers.is_void
),

reference_names as (
    select
        min(answerer) as reference_player,
        min(judge) as reference_judge
    from observations
),

parameters as (
    select distinct
        'quality' as effect_kind,
        answerer as effect_name
    from observations
    union all
    select distinct
        'leniency' as effect_kind,
        judge as effect_name
    from observations
    union all
    select distinct
        arms.arm as effect_kind,
        observations.judge as effect_name
    from observations
    cross join (values ('named'), ('fixed_order')) as arms (arm)
    union all
    select distinct
        'style' as effect_kind,
        feature as effect_name
    from styles
),

values_long as (
    select
        observation_id,
        question_id,
        'score' as effect_kind,
        'score' as effect_name,
        score::double as raw_value
    from observations
    union all
    select
        observations.observation_id,
        observations.question_id,
        parameters.effect_kind,
        parameters.effect_name,
        case
            when parameters.effect_kind = 'quality'
                then (observations.answerer = parameters.effect_name)::double
            when parameters.effect_kind = 'leniency'
                then (observations.judge = parameters.effect_name)::double
            when parameters.effect_kind in ('named', 'fixed_order')
                then (
                    observations.arm = parameters.effect_kind
                    and observations.judge = parameters.effect_name
                )::double
            else styles.feature_value
        end as raw_value
    from observations
    cross join parameters
    left join styles
        on
            observations.answer_id = styles.answer_id
            and parameters.effect_kind = 'style'
            and parameters.effect_name = styles.feature
),

centred as (
    select
        observation_id,
        question_id,
        effect_kind,
        effect_name,
        raw_value - avg(raw_value) over (
            partition by question_id, effect_kind, effect_name
        ) as centred_value
    from values_long
),

varying as (
    select
        centred.effect_kind,
        centred.effect_name,
        max(abs(centred.centred_value)) > 1e-12 or centred.effect_kind = 'score' as is_varying,
        count(*) filter (where centred.centred_value is null) > 0 as has_unknown_value,
        coalesce(
            centred.effect_kind = 'quality'
            and centred.effect_name = any_value(reference_names.reference_player)
            or centred.effect_kind = 'leniency'
            and centred.effect_name = any_value(reference_names.reference_judge),
            false
        ) as is_reference
    from centred
    cross join reference_names
    group by centred.effect_kind, centred.effect_name
),

indexed as (
    select
        effect_kind,
        effect_name,
        is_varying,
        is_reference,
        has_unknown_value,
        case
            when effect_kind = 'score' then 0
            when is_varying and not is_reference and not has_unknown_value
                then row_number() over (
                    partition by
                        is_varying and not is_reference and not has_unknown_value
                        and effect_kind <> 'score'
                    order by
                        list_position(
                            ['quality', 'leniency', 'named', 'fixed_order', 'style'], effect_kind
                        ),
                        effect_name
                )
        end as parameter_index
    from varying
)

select
    centred.observation_id,
    centred.question_id,
    indexed.parameter_index,
    indexed.effect_kind,
    indexed.effect_name,
    indexed.is_varying,
    indexed.is_reference,
    indexed.has_unknown_value,
    centred.centred_value
from centred
inner join indexed
    on centred.effect_kind = indexed.effect_kind and centred.effect_name = indexed.effect_name
