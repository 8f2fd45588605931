-- The joint model of pairwise judging (docs/arena_ratings.md, "One model for the biases"),
-- one row per effect, in the shape of arena_joint_model: every valid verdict, the self and
-- name arms' too, fitted at once (int_arena_pairwise_style_fits, fit joint):
--   logit P(first wins) = strength(first) - strength(second) + style . b
--                         + position(judge) + self(judge) * s + (name(first) - name(second)) * n
-- s +1 (-1) when the judge wrote the first (second) answer, n 1 when the authors were named.
-- Every effect is given in Elo points (400 / ln 10 = 173.7 points per unit of log-odds, the
-- unit of a strength), strengths and name terms against their mean over the players of the
-- same replicate (the reference's estimate is 0). The interval is the bootstrap's reflected
-- interval over questions, each arm stretched as the Elo's
-- (int_arena_pairwise_interval_expansion), rounded to 1e-9 points. An effect the data cannot
-- give has no value and a note saying why: a separated player (no finite strength), a style
-- feature not fitted, a parameter the others explain (aliased), one still moving at the
-- fit's last step (more than 1e-6 log-odds: no finite estimate, or not reached), or a
-- strength or name term whose group holds one of those (its mean is unknown).

{%- set tolerance = 1e-6 %}

with parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where fit = 'joint'
),

fits as (
    select * from {{ ref('int_arena_pairwise_style_fits') }}
    where fit = 'joint'
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

replicates as (
    select distinct replicate from fits
),

verdict_count as (
    select count(distinct verdict_id) as n_judgments from design
),

-- every fitted parameter (the references at 0) in every replicate, on the Elo scale
estimates as (
    select
        replicates.replicate,
        parameters.parameter_kind,
        parameters.parameter,
        400 / ln(10) * case
            when parameters.is_reference then 0.0
            when not fits.is_aliased then fits.estimate
        end as elo_estimate
    from replicates
    cross join parameters
    left join fits
        on
            replicates.replicate = fits.replicate
            and parameters.parameter_index = fits.parameter_index
    where parameters.is_fitted
),

centred as (
    select
        replicate,
        parameter_kind,
        parameter,
        elo_estimate - case
            when parameter_kind in ('player', 'name')
                then avg(elo_estimate) over (partition by replicate, parameter_kind)
            else 0
        end as effect
    from estimates
),

bootstrap_quantiles as (
    select
        parameter_kind,
        parameter,
        quantile_cont(effect, 0.025) as effect_q025,
        quantile_cont(effect, 0.975) as effect_q975,
        count(effect) as n_replicates
    from centred
    where replicate > 0
    group by parameter_kind, parameter
),

observed as (
    select
        parameters.parameter_kind,
        parameters.parameter,
        parameters.style_note,
        coalesce(fits.is_aliased, false) as is_aliased,
        coalesce(fits.parameter_last_change, 0) > {{ tolerance }} as is_moving,
        centred.effect
    from parameters
    left join fits
        on fits.replicate = 0 and parameters.parameter_index = fits.parameter_index
    left join centred
        on
            centred.replicate = 0
            and parameters.parameter_kind = centred.parameter_kind
            and parameters.parameter = centred.parameter
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
        case when effects.is_estimable then round(
            effects.effect
            - expansion.arm_factor * (bootstrap_quantiles.effect_q975 - effects.effect), 9
        ) end as joint_effect_ci_low,
        case when effects.is_estimable then round(
            effects.effect
            + expansion.arm_factor * (effects.effect - bootstrap_quantiles.effect_q025), 9
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
        end as joint_note,
        verdict_count.n_judgments,
        coalesce(bootstrap_quantiles.n_replicates, 0) as n_replicates
    from effects
    cross join expansion
    cross join verdict_count
    left join catalogue
        on effects.parameter_kind = 'feature' and effects.parameter = catalogue.feature
    left join bootstrap_quantiles
        on
            effects.parameter_kind = bootstrap_quantiles.parameter_kind
            and effects.parameter = bootstrap_quantiles.parameter
)

select * from final
