-- The joint model of pairwise judging (docs/arena_ratings.md, "One model for the biases"),
-- one row per effect, in the shape of arena_joint_model: every valid verdict, the self and
-- name arms' too, fitted at once (int_arena_pairwise_style_fits, fit joint):
--   logit P(first wins) = strength(first) - strength(second) + style . b
--                         + position(judge) + self(judge) * s + (name(first) - name(second)) * n
-- s +1 (-1) when the judge wrote the first (second) answer, n 1 when the authors were named.
-- Every effect is given in Elo points (400 / ln 10 = 173.7 points per unit of log-odds, the
-- unit of a strength), strengths and name terms against their mean over the players of the
-- fit (the reference's estimate is 0). The interval is the estimate plus and minus 1.96
-- standard errors of the sandwich clustered by question (int_arena_pairwise_joint_covariance),
-- stretched as the Elo's (int_arena_pairwise_interval_expansion: sqrt(G / (G - 1)) t(G - 1)
-- / z for G questions), rounded to 1e-9 points. An effect the data cannot
-- give has no value and a note saying why: a separated player (no finite strength), a style
-- feature not fitted, a parameter the others explain (aliased), one still moving at the
-- fit's last step (more than 1e-6 log-odds: no finite estimate, or not reached), or a
-- strength or name term whose group holds one of those (its mean is unknown). An effect held
-- by verdicts on fewer than arena_few_questions_n (10) questions keeps its value but has no
-- interval: the sandwich over a handful of questions is far too narrow.

{%- set tolerance = 1e-6 %}

with parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where fit = 'joint'
),

fits as (
    select * from {{ ref('int_arena_pairwise_style_fits') }}
    where fit = 'joint' and replicate = 0
),

covariance as (
    select * from {{ ref('int_arena_pairwise_joint_covariance') }}
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

-- the questions whose verdicts hold each parameter: the sandwich is a sum over questions, and
-- read from a handful of them it is far too narrow (a judge with 2 verdicts on its own answer)
verdict_questions as (
    select distinct
        verdict_id,
        question_id
    from {{ ref('int_arena_pairwise_style_features') }}
),

parameter_questions as (
    select
        design.parameter_index,
        count(distinct verdict_questions.question_id) as n_questions
    from design
    inner join verdict_questions
        on design.verdict_id = verdict_questions.verdict_id
    group by design.parameter_index
),

-- every fitted parameter (the references at 0), on the Elo scale, with its group: the
-- players' strengths and the name terms are read against their kind's mean
estimates as (
    select
        parameters.parameter_kind,
        parameters.parameter,
        parameters.parameter_index,
        400 / ln(10) * case
            when parameters.is_reference then 0.0
            when not fits.is_aliased then fits.estimate
        end as elo_estimate,
        coalesce(
            parameter_questions.n_questions,
            min(parameter_questions.n_questions) over (partition by parameters.parameter_kind)
        ) as n_questions,
        parameters.parameter_kind in ('player', 'name') as is_centred,
        count(*) over (partition by parameters.parameter_kind) as n_in_kind
    from parameters
    left join fits
        on parameters.parameter_index = fits.parameter_index
    left join parameter_questions
        on parameters.parameter_index = parameter_questions.parameter_index
    where parameters.is_fitted
),

-- var(c' theta) for c the parameter minus its kind's mean (c = the unit vector when not
-- centred): V_ii - 2 / n sum_j V_ij + 1 / n^2 sum_jk V_jk over the kind's fitted parameters
variances as (
    select
        estimates.parameter_kind,
        estimates.parameter,
        coalesce(
            sum(covariance.covariance) filter (
                where covariance.row_index = estimates.parameter_index
                and covariance.column_index = estimates.parameter_index
            ),
            0
        ) as own_variance,
        coalesce(
            sum(covariance.covariance) filter (
                where covariance.row_index = estimates.parameter_index
                and kind_members.parameter_index is not null
            ),
            0
        ) as kind_covariance,
        any_value(estimates.is_centred) as is_centred,
        any_value(estimates.n_in_kind) as n_in_kind
    from estimates
    left join covariance
        on estimates.parameter_index = covariance.row_index
    left join estimates as kind_members
        on
            covariance.column_index = kind_members.parameter_index
            and estimates.parameter_kind = kind_members.parameter_kind
    group by estimates.parameter_kind, estimates.parameter
),

kind_totals as (
    select
        row_members.parameter_kind,
        sum(covariance.covariance) as kind_total
    from covariance
    inner join estimates as row_members
        on covariance.row_index = row_members.parameter_index
    inner join estimates as column_members
        on
            covariance.column_index = column_members.parameter_index
            and row_members.parameter_kind = column_members.parameter_kind
    group by row_members.parameter_kind
),

centred as (
    select
        estimates.parameter_kind,
        estimates.parameter,
        estimates.elo_estimate - case
            when estimates.is_centred
                then avg(estimates.elo_estimate) over (partition by estimates.parameter_kind)
            else 0
        end as effect,
        estimates.n_questions,
        400 / ln(10) * sqrt(greatest(
            case
                when variances.is_centred
                    then
                        variances.own_variance
                        - 2 * variances.kind_covariance / variances.n_in_kind
                        + coalesce(kind_totals.kind_total, 0) / variances.n_in_kind ^ 2
                else variances.own_variance
            end,
            0
        )) as standard_error
    from estimates
    inner join variances
        on
            estimates.parameter_kind = variances.parameter_kind
            and estimates.parameter = variances.parameter
    left join kind_totals
        on estimates.parameter_kind = kind_totals.parameter_kind
),

observed as (
    select
        parameters.parameter_kind,
        parameters.parameter,
        parameters.style_note,
        coalesce(fits.is_aliased, false) as is_aliased,
        coalesce(fits.parameter_last_change, 0) > {{ tolerance }} as is_moving,
        centred.effect,
        centred.standard_error,
        coalesce(centred.n_questions, 0) < {{ arena_few_questions_n() }} as is_thin
    from parameters
    left join fits
        on parameters.parameter_index = fits.parameter_index
    left join centred
        on
            parameters.parameter_kind = centred.parameter_kind
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
