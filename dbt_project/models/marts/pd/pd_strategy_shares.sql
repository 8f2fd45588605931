{{ config(location=mart_location()) }}

{#- Each agent's strategy shares by SFEM (int_pd_sfem_strategies), with 95% intervals from the
    observed information of the fit (int_pd_sfem_information): a share of an active group
    (at least 1%) share +- 1.96 standard errors, clipped to [0, 1]; an inactive share from 0
    to its likelihood bound; the reference group, when it is the only active one, from its
    share less the largest bound of the others to 1; the tremble by Wilson's score interval
    over the number of choices its variance is worth (all the agent's choices when the
    tremble sits at a bound, 0.001 or 0.5), from 0 when it sits at its floor 0.001.
    Strategies that prescribe the same in everything the agent met split their group's
    share and interval equally. -#}
with

strategy_fits as (
    select * from {{ ref('int_pd_sfem_strategies') }}
),

information as (
    select * from {{ ref('int_pd_sfem_information') }}
),

scores as (
    select * from {{ ref('int_pd_sfem_scores') }}
),

vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

agent_likelihoods as (
    select
        agent_name,
        sum(n_sides * vector_log_likelihood order by vector_id) as log_likelihood
    from (
        select distinct
            agent_name,
            vector_id,
            n_sides,
            vector_log_likelihood
        from scores
    ) as vector_likelihoods
    group by agent_name
),

agent_counts as (
    select
        agent_name,
        sum(n_sides)::bigint as n_matches,
        sum(n_sides * n_choices)::bigint as n_choices
    from vectors
    group by agent_name
),

group_intervals as (
    select
        *,
        -- a singular information (strategies the data barely tells apart) leaves no standard
        -- error, nor does a nearly singular one, whose standard error of 1 or more (and its
        -- digits, the noise of the inversion) says no more than the interval [0, 1]
        case
            when isfinite(share_variance) and share_variance > 0 and share_variance < 1
                then sqrt(share_variance)
        end as share_se,
        count(*) filter (where is_active) over agent as n_active,
        max(share_bound) over agent as largest_bound,
        case
            when isfinite(tremble_variance) and tremble_variance > 0 then sqrt(tremble_variance)
        end as tremble_se
    from information
    window agent as (partition by agent_name)
),

shares as (
    select
        strategy_fits.agent_name,
        strategy_fits.strategy,
        strategy_fits.share,
        group_intervals.share_se / group_intervals.group_size as share_se,
        case
            when group_intervals.is_reference and group_intervals.n_active = 1
                then greatest(0, group_intervals.group_share - group_intervals.largest_bound)
            when group_intervals.is_active
                then greatest(0, group_intervals.group_share - 1.96 * group_intervals.share_se)
            else 0
        end / group_intervals.group_size as share_ci_low,
        case
            when group_intervals.is_reference and group_intervals.n_active = 1 then 1
            when group_intervals.is_active
                then least(1, group_intervals.group_share + 1.96 * group_intervals.share_se)
            else least(1, group_intervals.group_share + group_intervals.share_bound)
        end / group_intervals.group_size as share_ci_high,
        strategy_fits.tremble,
        -- the tremble's effective number of choices: as many as its variance implies, at
        -- most all of them; all of them at a bound, where the variance says nothing
        case
            when
                strategy_fits.tremble > 0.001
                and strategy_fits.tremble < 0.5
                and group_intervals.tremble_se > 0
                then least(
                    agent_counts.n_choices,
                    strategy_fits.tremble * (1 - strategy_fits.tremble)
                    / group_intervals.tremble_se ^ 2
                )
            else agent_counts.n_choices
        end as tremble_n,
        group_intervals.group_size as n_tied_strategies,
        strategy_fits.n_em_steps,
        strategy_fits.last_gain
    from strategy_fits
    inner join group_intervals
        on
            strategy_fits.agent_name = group_intervals.agent_name
            and strategy_fits.group_order = group_intervals.group_order
    inner join agent_counts on strategy_fits.agent_name = agent_counts.agent_name
),

-- rounded to 1e-9: digits below are the noise of summing in another order, and a share
-- the fit drives towards 0 is 0
rounded as (
    select
        shares.agent_name,
        shares.strategy,
        round(shares.share, 9) as share,  -- noqa: RF04
        round(shares.share_se, 9) as share_se,
        round(coalesce(shares.share_ci_low, 0), 9) as share_ci_low,
        round(coalesce(shares.share_ci_high, 1), 9) as share_ci_high,
        round(shares.tremble, 9) as tremble,
        -- a tremble at its floor may be no tremble at all
        case
            when shares.tremble > 0.001
                then round(wilson_share_low(shares.tremble, shares.tremble_n), 9)
            else 0.0
        end as tremble_ci_low,
        round(wilson_share_high(shares.tremble, shares.tremble_n), 9) as tremble_ci_high,
        shares.n_tied_strategies,
        agent_likelihoods.log_likelihood,
        agent_counts.n_matches,
        agent_counts.n_choices,
        shares.n_em_steps,
        shares.last_gain
    from shares
    inner join agent_likelihoods on shares.agent_name = agent_likelihoods.agent_name
    inner join agent_counts on shares.agent_name = agent_counts.agent_name
)

select * from rounded
order by agent_name asc, share desc, strategy asc
