-- The tie model of the Bradley-Terry fit and its tie parameter with a 95% interval (see the
-- YAML): one row.

with fits as (
    select * from {{ ref('int_arena_bradley_terry_fits') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

replicate_parameters as (
    select
        replicate,
        any_value(tie_parameter) as tie_parameter
    from fits
    group by replicate
),

ties as (
    select
        scoring.pairwise_tie_model as tie_model,
        case
            when scoring.pairwise_tie_model = 'davidson'
                then max(replicate_nu.tie_parameter) filter (where replicate_nu.replicate = 0)
        end as tie_parameter,
        case
            when scoring.pairwise_tie_model = 'davidson'
                then
                    quantile_cont(replicate_nu.tie_parameter, 0.025)
                    filter (where replicate_nu.replicate > 0)
        end as tie_parameter_ci_low,
        case
            when scoring.pairwise_tie_model = 'davidson'
                then
                    quantile_cont(replicate_nu.tie_parameter, 0.975)
                    filter (where replicate_nu.replicate > 0)
        end as tie_parameter_ci_high
    from scoring
    left join replicate_parameters as replicate_nu
        on true
    group by scoring.pairwise_tie_model
)

select * from ties
