{{ config(location=mart_location()) }}

-- Style control of the pairwise verdicts: one row per style feature
-- (int_arena_pairwise_style_features), its coefficient in the style-controlled
-- Bradley-Terry fit (int_arena_pairwise_style_fits): the log-odds of preferring the first
-- answer that one unit of the feature's difference (first minus second) adds, the
-- players' strengths held. The interval is the bootstrap's reflected interval over
-- questions, each arm stretched as the Elo's, rounded to 1e-9. A feature that could not be
-- fitted has a NULL coefficient and a note that says why.

with parameters as (
    select * from {{ ref('int_arena_pairwise_style_parameters') }}
    where fit = 'style_controlled' and parameter_kind = 'feature'
),

features as (
    select * from {{ ref('int_arena_pairwise_style_features') }}
    where is_scored
),

fits as (
    select * from {{ ref('int_arena_pairwise_style_fits') }}
    where fit = 'style_controlled'
),

expansion as (
    select * from {{ ref('int_arena_pairwise_interval_expansion') }}
),

catalogue as (
    select
        feature,
        any_value(feature_order) as feature_order,
        any_value(feature_label) as feature_label,
        any_value(feature_unit) as feature_unit,
        count(distinct verdict_id) as n_verdicts,
        count(distinct verdict_id) filter (where feature_difference != 0) as n_differing
    from features
    group by feature
),

bootstrap_quantiles as (
    select
        parameter_index,
        quantile_cont(estimate, 0.025) as estimate_q025,
        quantile_cont(estimate, 0.975) as estimate_q975,
        count(*) as n_replicates
    from fits
    where replicate > 0
    group by parameter_index
),

observed as (
    select * from fits
    where replicate = 0
),

final as (
    select
        catalogue.feature,
        catalogue.feature_label,
        catalogue.feature_unit,
        case when not observed.is_aliased then observed.estimate end as coefficient,
        case when not observed.is_aliased then round(
            observed.estimate
            - expansion.arm_factor * (bootstrap_quantiles.estimate_q975 - observed.estimate),
            9
        ) end as ci_low,
        case when not observed.is_aliased then round(
            observed.estimate
            + expansion.arm_factor * (observed.estimate - bootstrap_quantiles.estimate_q025),
            9
        ) end as ci_high,
        catalogue.n_verdicts,
        catalogue.n_differing,
        coalesce(bootstrap_quantiles.n_replicates, 0) as n_replicates,
        observed.style_last_change,
        observed.is_converged,
        case
            when observed.is_aliased
                then 'not fitted: it follows the players, whose strengths already explain it'
            when not observed.is_converged
                then
                    'the fit was still moving at its last step: the coefficient is where it '
                    || 'stopped, not an estimate'
            else parameters.style_note
        end as style_note,
        catalogue.feature_order
    from catalogue
    inner join parameters
        on catalogue.feature = parameters.parameter
    cross join expansion
    left join observed
        on parameters.parameter_index = observed.parameter_index
    left join bootstrap_quantiles
        on parameters.parameter_index = bootstrap_quantiles.parameter_index
)

select * exclude (feature_order)
from final
order by feature_order asc
