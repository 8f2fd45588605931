-- The joint model of pairwise judging's estimates (int_arena_pairwise_style_fits, fit joint),
-- one row per fitted parameter: its effect in Elo points (400 / ln 10 = 173.7 points per unit
-- of log-odds, the unit of a strength), a strength or a name term against its kind's mean over
-- the players of the fit (the reference's estimate is 0, and counts in the mean); its standard
-- error, from the sandwich clustered by question (int_arena_pairwise_joint_covariance) for
-- that contrast; the questions whose verdicts hold it; and whether the fit could not give it
-- (is_aliased: explained by the others; is_moving: still moving more than 1e-6 log-odds at
-- the fit's last step). Effects and errors are rounded to 1e-9 points.

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

final as (
    select
        estimates.parameter_kind,
        estimates.parameter,
        round(centred.effect, 9) as effect,
        round(centred.standard_error, 9) as standard_error,
        centred.n_questions,
        coalesce(fits.is_aliased, false) as is_aliased,
        coalesce(fits.parameter_last_change, 0) > {{ tolerance }} as is_moving
    from estimates
    inner join centred
        on
            estimates.parameter_kind = centred.parameter_kind
            and estimates.parameter = centred.parameter
    left join fits
        on estimates.parameter_index = fits.parameter_index
)

select * from final
