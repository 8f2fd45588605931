{{ config(location=mart_location()) }}

{#- Each agent's strategy shares by SFEM (int_pd_sfem_fits): the shares and tremble fitted on
    its match sides as they are, with 95% percentile intervals over the bootstrap over match
    sides, and the log-likelihood of its choices at the fit. -#}
with

fits as (
    select * from {{ ref('int_pd_sfem_fits') }}
),

bootstrap_fits as (
    select * from {{ ref('int_pd_sfem_bootstrap_fits') }}
),

choices as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

fitted as (
    select * from fits
),

intervals as (
    select
        agent_name,
        strategy,
        quantile_cont(share, 0.025) as share_ci_low,
        quantile_cont(share, 0.975) as share_ci_high,
        quantile_cont(tremble, 0.025) as tremble_ci_low,
        quantile_cont(tremble, 0.975) as tremble_ci_high,
        count(*) as n_bootstrap_draws
    from bootstrap_fits
    group by agent_name, strategy
),

strategy_likelihoods as (
    select
        choices.agent_name,
        choices.vector_id,
        choices.n_sides,
        choices.n_choices,
        fitted.share,
        {{ sfem_log_likelihood('fitted.tremble') }} as log_likelihood
    from choices
    inner join fitted
        on choices.agent_name = fitted.agent_name and choices.strategy = fitted.strategy
),

-- per count vector: the likelihood of each of the match sides it stands for
side_likelihoods as (
    select
        agent_name,
        vector_id,
        any_value(n_sides) as n_sides,
        any_value(n_choices) as n_choices,
        -- ln sum_s share_s L_s, the largest ln L_s taken out so that no term underflows
        any_value(largest_log_likelihood)
        + ln(sum(share * exp(log_likelihood - largest_log_likelihood))) as log_likelihood
    from (
        select
            *,
            max(log_likelihood) over (partition by agent_name, vector_id)
                as largest_log_likelihood
        from strategy_likelihoods
    ) as scaled
    group by agent_name, vector_id
),

agent_likelihoods as (
    select
        agent_name,
        sum(n_sides * log_likelihood order by vector_id) as log_likelihood,
        sum(n_sides)::bigint as n_matches,
        sum(n_sides * n_choices)::bigint as n_choices
    from side_likelihoods
    group by agent_name
),

-- rounded to 1e-9: digits below are the noise of summing in another order, and a share
-- the fit drives towards 0 (1e-150 after its steps) is 0
shares as (
    select
        fitted.agent_name,
        fitted.strategy,
        round(fitted.share, 9) as share,  -- noqa: RF04
        round(intervals.share_ci_low, 9) as share_ci_low,
        round(intervals.share_ci_high, 9) as share_ci_high,
        round(fitted.tremble, 9) as tremble,
        round(intervals.tremble_ci_low, 9) as tremble_ci_low,
        round(intervals.tremble_ci_high, 9) as tremble_ci_high,
        agent_likelihoods.log_likelihood,
        agent_likelihoods.n_matches,
        agent_likelihoods.n_choices,
        coalesce(intervals.n_bootstrap_draws, 0) as n_bootstrap_draws,
        fitted.last_change
    from fitted
    inner join agent_likelihoods
        on fitted.agent_name = agent_likelihoods.agent_name
    left join intervals
        on fitted.agent_name = intervals.agent_name and fitted.strategy = intervals.strategy
)

select * from shares
order by agent_name asc, share desc, strategy asc
