-- The joint model of pairwise judging, one row per effect in arena_joint_model's columns
-- (the model: int_arena_pairwise_joint_effects.yml, docs/arena_ratings.md). Effects in Elo
-- points (int_arena_pairwise_joint_estimates); the interval: 1.96 sandwich standard errors
-- each side, stretched as the Elo's; none under arena_few_questions_n questions. An effect
-- the data cannot give has no value and a note saying why.

with parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where fit = 'joint'
),

estimates as (
    select * from {{ ref('int_arena_pairwise_joint_estimates') }}
),

design as (
    select * from {{ ref('int_arena_pairwise_style_design') }}
    where fit = 'joint' and replicate = 0
),

bounds as (
    select * from {{ ref('int_arena_pairwise_bounds') }}
),

expansion as (
    select * from {{ ref('int_arena_pairwise_interval_expansion') }}
),

catalogue as (
    select * from {{ ref('style_features') }}
),

verdict_count as (
    select count(distinct verdict_id) as n_judgments from design
),

observed as (
    select
        parameters.parameter_kind,
        parameters.parameter,
        parameters.style_note,
        coalesce(estimates.is_aliased, false) as is_aliased,
        coalesce(estimates.is_moving, false) as is_moving,
        estimates.effect,
        estimates.standard_error,
        coalesce(estimates.n_questions, 0) < {{ arena_few_questions_n() }} as is_thin
    from parameters
    left join estimates
        on
            parameters.parameter_kind = estimates.parameter_kind
            and parameters.parameter = estimates.parameter
),

-- strengths and name terms are read against their group's mean, which holds no value when
-- one of them has none
judged as (
    select
        *,
        parameter_kind in ('player', 'name') and bool_or(is_aliased or is_moving) over (
            partition by parameter_kind
        ) as is_group_unread
    from observed
),

effects as (
    select
        *,
        effect is not null and not is_aliased and not is_moving and not is_group_unread
            as is_estimable
    from judged
    union all
    select
        'player' as parameter_kind,
        player as parameter,
        null as style_note,
        false as is_aliased,
        false as is_moving,
        null as effect,
        null as standard_error,
        false as is_thin,
        false as is_group_unread,
        false as is_estimable
    from bounds
    where is_separated
),

final as (
    select
        'pairwise' as judging,
        case effects.parameter_kind
            when 'player' then 'strength'
            when 'feature' then 'style'
            else effects.parameter_kind
        end as effect_kind,
        effects.parameter as effect_name,
        case effects.parameter_kind
            when 'player' then 'strength of ' || effects.parameter
            when 'position' then 'position bias of ' || effects.parameter
            when 'self' then 'self bias of ' || effects.parameter
            when 'name' then 'name pull of ' || effects.parameter
            else catalogue.feature_label
        end as effect_label,
        case when effects.is_estimable then round(effects.effect, 9) end as joint_effect,
        case when effects.is_estimable and not effects.is_thin then round(
            effects.effect - expansion.arm_factor * 1.959964 * effects.standard_error, 9
        ) end as joint_effect_ci_low,
        case when effects.is_estimable and not effects.is_thin then round(
            effects.effect + expansion.arm_factor * 1.959964 * effects.standard_error, 9
        ) end as joint_effect_ci_high,
        case effects.parameter_kind
            when 'player' then 'Elo points above the mean player'
            when 'position' then 'Elo points the judge adds to the answer shown first'
            when 'self' then 'Elo points the judge adds to its own answer'
            when 'name' then 'Elo points its name adds to its answer, above the mean player'
            else 'Elo points ' || catalogue.feature_unit
        end as effect_unit,
        effects.is_estimable,
        case
            when effects.parameter_kind = 'player' and effects.effect is null
                then 'separated: it won or lost every scored verdict, no finite strength'
            when effects.style_note is not null
                then replace(effects.style_note, 'not fitted: ', '')
            when effects.is_aliased
                then 'explained by the other effects (collinear): not separable from them'
            when effects.is_moving
                then
                    'no estimate: still moving at the fit''s last step (its verdicts nearly all '
                    || 'go one way, or the fit needs more steps)'
            when effects.is_group_unread
                then 'read against the mean of a group in which an effect has no estimate'
            when effects.is_thin
                then
                    'no interval: held by verdicts on fewer than {{ arena_few_questions_n() }} '
                    || 'questions, too few for the sandwich'
        end as joint_note,
        verdict_count.n_judgments,
        null::bigint as n_replicates
    from effects
    cross join expansion
    cross join verdict_count
    left join catalogue
        on effects.parameter_kind = 'feature' and effects.parameter = catalogue.feature
)

select * from final
