-- Each condition's value of every metric of the catalogue that a condition row gets from its
-- replicates, and its 95% interval (docs/pd_intervals.md, "Which interval, which p-value"),
-- from what the replicates give (int_pd_condition_moments). A mean over replicates: Student's
-- t interval, mean -+ t(0.975, n - 1) x sd / sqrt(n) over the n replicates that define the
-- metric, clipped to the range the metric can take, and its note says so. A rate with trials:
-- the wider, end by end, of that t interval and its binomial floor, the Wilson interval of
-- the mean at the effective trials, so that a rate of rare events whose few replicates all
-- show 0 or 1 event is not given a too narrow interval; the note says when the floor widened
-- it. A pooled share (interval 'wilson'): the successes over the trials of every replicate,
-- with the Wilson score interval on those counts. NULL, with the reason in ci_note, when
-- fewer than two replicates define a mean, when they all gave the same value and no floor
-- exists (a random quantity never gets a zero-width interval) or when a pooled share counted
-- no trial. Bounds are rounded to 9 decimals (interval_bound).
{{ config(materialized='table') }}

with

moments as (
    select * from {{ ref('int_pd_condition_moments') }}
),

t_bounds as (
    select
        *,
        case
            when n >= 2 and round(sd, 12) > 0
                then mean - t_quantile_975(n - 1) * sd / sqrt(n)
        end as raw_low,
        case
            when n >= 2 and round(sd, 12) > 0
                then mean + t_quantile_975(n - 1) * sd / sqrt(n)
        end as raw_high,
        case
            when n < 2 then 'fewer than 2 replicates define it'
            when round(sd, 12) = 0 then 'every replicate gave the same value'
        end as null_reason,
        case
            when n >= 2 then wilson_share_low(mean, effective_trials)
        end as floor_low,
        case
            when n >= 2 then wilson_share_high(mean, effective_trials)
        end as floor_high
    from moments
),

-- the t interval clipped to the metric's range; greatest() and least() skip a NULL argument,
-- so only a bound that exists is clipped, and only where the range has that end
clipped as (
    select
        *,
        case
            when raw_low is not null then greatest(range_low, interval_bound(raw_low))
        end as t_low,
        case
            when raw_high is not null then least(range_high, interval_bound(raw_high))
        end as t_high,
        coalesce(interval_bound(raw_low) < range_low, false)
        or coalesce(interval_bound(raw_high) > range_high, false) as is_clipped,
        'clipped to ['
        || coalesce(printf('%g', range_low), '-inf')
        || ', '
        || coalesce(printf('%g', range_high), 'inf')
        || ']' as clip_note
    from t_bounds
),

-- a rate's interval: the wider of its t interval and its binomial floor at each end (where
-- only one exists, that one); DuckDB's least() and greatest() would skip a NULL end
-- silently, so the cases say what a missing end means
rate_intervals as (
    select
        *,
        case
            when t_low is null then floor_low
            when floor_low is null then t_low
            else least(t_low, floor_low)
        end as rate_low,
        case
            when t_high is null then floor_high
            when floor_high is null then t_high
            else greatest(t_high, floor_high)
        end as rate_high,
        case
            when floor_low is null
                then coalesce(null_reason, case when is_clipped then clip_note end)
            else nullif(concat_ws(
                '; ',
                null_reason,
                case when is_clipped then clip_note end,
                case
                    when t_low is null or floor_low < t_low or floor_high > t_high
                        then 'widened to the binomial floor (Wilson on the pooled trials)'
                end
            ), '')
        end as rate_note
    from clipped
),

intervals as (
    select
        condition,
        column_name,
        metric,
        side,
        -- `value`, as every long table of the PD names it
        case
            when condition_rule = 'pooled' then pooled_successes / nullif(pooled_trials, 0)
            else mean
        end as value,  -- noqa: RF04
        case
            when interval_kind = 'wilson' then wilson_count_low(pooled_successes, pooled_trials)
            when interval_kind = 't' and is_rate then rate_low
            when interval_kind = 't' then t_low
        end as ci_low,
        case
            when interval_kind = 'wilson' then wilson_count_high(pooled_successes, pooled_trials)
            when interval_kind = 't' and is_rate then rate_high
            when interval_kind = 't' then t_high
        end as ci_high,
        case
            when interval_kind = 'wilson' and coalesce(pooled_trials, 0) = 0
                then 'the previous round never occurred'
            when interval_kind = 't' and is_rate then rate_note
            when interval_kind = 't'
                then coalesce(null_reason, case when is_clipped then clip_note end)
        end as ci_note,
        interval_kind,
        n_replicates
    from rate_intervals
)

select * from intervals
