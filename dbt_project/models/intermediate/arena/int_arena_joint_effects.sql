-- The joint model of absolute judging, one row per effect (int_arena_joint_fits; the model
-- and its assumptions: docs/arena_ratings.md, "One model for the biases"), in
-- arena_joint_model's columns. Players' quality and judges' leniency are read against their
-- own mean: the fitted coefficients (the reference held at 0) minus their mean over the
-- players (over the judges) of the same replicate. The interval is the bootstrap's reflected
-- interval over questions, each arm stretched as the leaderboard's
-- (int_arena_interval_expansion), rounded to 1e-12 (the digits below are the noise of summing
-- in another order). An effect the data cannot give has no value and a note saying why.

with fits as (
    select * from {{ ref('int_arena_joint_fits') }}
),

design as (
    select * from {{ ref('int_arena_joint_design') }}
),

expansion as (
    select * from {{ ref('int_arena_interval_expansion') }}
),

styles as (
    select * from {{ ref('int_arena_answer_style') }}
),

feature_names as (
    select distinct
        feature,
        feature_label,
        feature_unit
    from styles
),

observation_count as (
    select count(distinct observation_id) as n_judgments from design
),

centred as (
    select
        replicate,
        effect_kind,
        effect_name,
        is_varying,
        has_unknown_value,
        is_estimable,
        coefficient - case
            when effect_kind in ('quality', 'leniency')
                then avg(coefficient) over (partition by replicate, effect_kind)
            else 0
        end as effect
    from fits
),

bootstrap_quantiles as (
    select
        effect_kind,
        effect_name,
        quantile_cont(effect, 0.025) as effect_q025,
        quantile_cont(effect, 0.975) as effect_q975,
        count(effect) as n_replicates
    from centred
    where replicate > 0
    group by effect_kind, effect_name
),

final as (
    select
        'absolute' as judging,
        observed.effect_kind,
        observed.effect_name,
        case observed.effect_kind
            when 'quality' then 'quality of ' || observed.effect_name
            when 'leniency' then 'leniency of ' || observed.effect_name
            when 'named' then 'name bias of ' || observed.effect_name
            when 'fixed_order' then 'position bias of ' || observed.effect_name
            else feature_names.feature_label
        end as effect_label,
        round(observed.effect, 12) as joint_effect,
        round(
            observed.effect - expansion.arm_factor * (quantiles.effect_q975 - observed.effect), 12
        ) as joint_effect_ci_low,
        round(
            observed.effect + expansion.arm_factor * (observed.effect - quantiles.effect_q025), 12
        ) as joint_effect_ci_high,
        case observed.effect_kind
            when 'quality' then 'points of 0..10 above the mean player'
            when 'leniency' then 'points of 0..10 above the mean judge'
            when 'named' then 'points of 0..10 the judge adds when the authors are named'
            when 'fixed_order' then 'points of 0..10 the judge adds in one fixed order'
            else 'points of 0..10 ' || feature_names.feature_unit
        end as effect_unit,
        observed.is_estimable,
        case
            when observed.has_unknown_value then 'the text of some judged answers is unknown'
            when not observed.is_varying and observed.effect_kind in ('named', 'fixed_order')
                then 'the judge gave no judgement in this arm'
            when not observed.is_varying and observed.effect_kind = 'style'
                then 'the same in every answer to a question: no answer uses it, or all alike'
            when not observed.is_varying then 'no variation within a question'
            when not observed.is_estimable
                then 'explained by the other effects (collinear): not separable from them'
        end as joint_note,
        observation_count.n_judgments,
        coalesce(quantiles.n_replicates, 0) as n_replicates
    from centred as observed
    cross join expansion
    cross join observation_count
    left join feature_names
        on observed.effect_kind = 'style' and observed.effect_name = feature_names.feature
    left join bootstrap_quantiles as quantiles
        on
            observed.effect_kind = quantiles.effect_kind
            and observed.effect_name = quantiles.effect_name
    where observed.replicate = 0
)

select * from final
