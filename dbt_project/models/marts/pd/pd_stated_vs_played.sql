{{ config(location=mart_location()) }}

-- What each agent said it would play against what it played, per condition and state
-- (docs/strategy.md#stated-strategies): over the matches where the agent stated a valid
-- table and met the state, the mean stated probability of cooperating, the mean share of
-- its rounds in that state in which it cooperated, and their mean difference (stated minus
-- played) with a 95% t interval over the matches, clipped to [-1, 1]. A difference that is
-- the same in at least two matches is exact (its interval is the point itself); one match
-- gives no interval. is_inconsistent: the interval excludes 0.

with

compared as (
    select * from {{ ref('int_pd_stated_vs_played') }}
),

by_state as (
    select
        agent_name,
        condition,
        state,
        count(*) as n_matches,
        sum(n_rounds)::bigint as n_rounds,
        avg(stated_p order by match_id, side) as stated_p,
        avg(played_p order by match_id, side) as played_p,
        avg(difference order by match_id, side) as difference,
        stddev_samp(difference order by match_id, side) as sd_difference
    from compared
    group by agent_name, condition, state
),

intervals as (
    select
        *,
        case
            when n_matches < 2 then null
            when sd_difference = 0 then difference
            else greatest(
                -1.0,
                difference - t_quantile_975(n_matches - 1) * sd_difference / sqrt(n_matches)
            )
        end as ci_low,
        case
            when n_matches < 2 then null
            when sd_difference = 0 then difference
            else least(
                1.0,
                difference + t_quantile_975(n_matches - 1) * sd_difference / sqrt(n_matches)
            )
        end as ci_high
    from by_state
),

stated_vs_played as (
    select
        agent_name,
        condition,
        state,
        n_matches,
        n_rounds,
        stated_p,
        played_p,
        difference,
        interval_bound(ci_low) as ci_low,
        interval_bound(ci_high) as ci_high,
        case
            when n_matches < 2 then 'one match: no interval'
            when sd_difference = 0 then 'exact: the same difference in every match'
        end as ci_note,
        coalesce(ci_low > 0 or ci_high < 0, false) as is_inconsistent
    from intervals
)

select * from stated_vs_played
