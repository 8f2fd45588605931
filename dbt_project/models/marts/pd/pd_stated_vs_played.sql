{{ config(location=mart_location()) }}

-- What each agent said it would play against what it played, per condition and state
-- (docs/strategy.md#stated-strategies): over the matches where the agent stated a valid
-- table and met the state, the mean stated probability of cooperating, the mean share of
-- its rounds in that state in which it cooperated, and their mean difference (stated minus
-- played) with a 95% t interval over the matches, clipped to [-1, 1]. A difference that is
-- the same in at least two matches is exact (its interval is the point itself); one match
-- gives no interval. is_inconsistent: the interval excludes 0. On each row of an agent and
-- condition: the mean points per round its stated table earned played by pdbench against a
-- copy of each opponent, and what the agent earned in the same matches.

with

compared as (
    select * from {{ ref('int_pd_stated_vs_played') }}
),

-- per agent and condition, over the matches where the stated table was played (its
-- opponent a policy): the same value on each state's row
points as (
    select
        agent_name,
        condition,
        avg(stated_points_per_round order by match_id, side) as stated_points_per_round,
        avg(played_points_per_round order by match_id, side) as played_points_per_round
    from (
        select distinct
            match_id,
            side,
            agent_name,
            condition,
            stated_points_per_round,
            played_points_per_round
        from compared
        where stated_points_per_round is not null
    ) as played_matches
    group by agent_name, condition
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
        intervals.agent_name,
        intervals.condition,
        intervals.state,
        intervals.n_matches,
        intervals.n_rounds,
        intervals.stated_p,
        intervals.played_p,
        intervals.difference,
        interval_bound(intervals.ci_low) as ci_low,
        interval_bound(intervals.ci_high) as ci_high,
        case
            when intervals.n_matches < 2 then 'one match: no interval'
            when intervals.sd_difference = 0 then 'exact: the same difference in every match'
        end as ci_note,
        coalesce(intervals.ci_low > 0 or intervals.ci_high < 0, false) as is_inconsistent,
        points.stated_points_per_round,
        points.played_points_per_round
    from intervals
    left join points
        on
            intervals.agent_name = points.agent_name
            and intervals.condition = points.condition
)

select * from stated_vs_played
