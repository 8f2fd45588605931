-- Each condition's value of every metric of the catalogue that a condition row gets from its
-- replicates (int_pd_metric_columns: condition 'mean' or 'pooled'), and its 95% interval
-- (docs/pd_intervals.md, "Which interval, which p-value"). A mean over replicates: Student's
-- t interval, mean -+ t(0.975, n - 1) x sd / sqrt(n) over the n replicates that define the
-- metric, clipped to the range the metric can take (the catalogue's bounds: a share's [0, 1],
-- a payoff per round's the run's lowest to highest payoff, a match's total those times the
-- rounds its condition's matches played, ...), and its note says so. A rate with trials:
-- the wider, end by end, of that t interval and its binomial floor, the Wilson interval of
-- the mean at the effective trials n^2 / sum(1 / trials_i) (the variance of a mean of n
-- binomial shares is p (1 - p) / n^2 x sum(1 / trials_i)), so that a rate of rare events
-- whose few replicates all show 0 or 1 event is not given a too narrow interval; the note
-- says when the floor widened it. A pooled share (interval 'wilson'): the successes over the
-- trials of every replicate, with the Wilson score interval on those counts. NULL, with the
-- reason in ci_note, when fewer than two replicates define a mean, when they all gave the
-- same value and no floor exists (a random quantity never gets a zero-width interval) or
-- when a pooled share counted no trial. Bounds are rounded to 9 decimals (interval_bound).
{{ config(materialized='table') }}

with

metric_values as (
    select * from {{ ref('int_pd_metric_values') }}
),

metric_columns as (
    select * from {{ ref('int_pd_metric_columns') }}
    where condition in ('mean', 'pooled')
),

run_payoffs as (
    select
        lowest_payoff,
        highest_payoff
    from {{ ref('stg_pd_run_manifest') }}
),

condition_rounds as (
    select
        condition,
        min(rounds_played) as fewest_rounds,
        max(rounds_played) as most_rounds
    from {{ ref('int_pd_match_metrics') }}
    where match_status = 'ok'
    group by condition
),

moments as (
    select
        metric_values.condition,
        metric_values.column_name,
        count(metric_values.value) as n,
        -- summed in replicate order: a floating-point sum depends on the order of its terms
        avg(metric_values.value order by metric_values.replicate) as mean,
        stddev_samp(metric_values.value order by metric_values.replicate) as sd,
        -- n^2 / sum(1 / trials), only when every replicate that defines the rate counted them
        case
            when
                count(metric_values.n_trials) filter (where metric_values.value is not null)
                = count(metric_values.value)
                then count(metric_values.value) ^ 2 / sum(1.0 / metric_values.n_trials) filter (
                    where metric_values.value is not null and metric_values.n_trials > 0
                )
        end as effective_trials,
        sum(metric_values.n_successes) as pooled_successes,
        sum(metric_values.n_trials) as pooled_trials,
        count(*) as n_replicates
    from metric_values
    group by metric_values.condition, metric_values.column_name
),

t_bounds as (
    select
        moments.*,
        metric_columns.metric,
        metric_columns.side,
        metric_columns.is_rate,
        metric_columns.bounds,
        metric_columns.interval_kind,
        metric_columns.condition as condition_rule,
        case
            when moments.n >= 2 and round(moments.sd, 12) > 0
                then moments.mean - t_quantile_975(moments.n - 1) * moments.sd / sqrt(moments.n)
        end as raw_low,
        case
            when moments.n >= 2 and round(moments.sd, 12) > 0
                then moments.mean + t_quantile_975(moments.n - 1) * moments.sd / sqrt(moments.n)
        end as raw_high,
        case
            when moments.n < 2 then 'fewer than 2 replicates define it'
            when round(moments.sd, 12) = 0 then 'every replicate gave the same value'
        end as null_reason,
        case
            when moments.n >= 2 then wilson_share_low(moments.mean, moments.effective_trials)
        end as floor_low,
        case
            when moments.n >= 2 then wilson_share_high(moments.mean, moments.effective_trials)
        end as floor_high
    from moments
    inner join metric_columns
        on moments.column_name = metric_columns.column_name
),

-- the range each metric can take in its condition; NULL: unbounded
ranges as (
    select
        t_bounds.*,
        case
            when t_bounds.is_rate then 0.0
            when t_bounds.bounds = 'payoff' then run_payoffs.lowest_payoff
            when t_bounds.bounds = 'match_payoff'
                then least(
                    run_payoffs.lowest_payoff * condition_rounds.fewest_rounds,
                    run_payoffs.lowest_payoff * condition_rounds.most_rounds
                )
            when t_bounds.bounds = 'payoff_gap'
                then
                    (run_payoffs.lowest_payoff - run_payoffs.highest_payoff)
                    * condition_rounds.most_rounds
            when t_bounds.bounds = 'round' then 1.0
            when t_bounds.bounds = 'rounds' then 0.0
        end as range_low,
        case
            when t_bounds.is_rate then 1.0
            when t_bounds.bounds = 'payoff' then run_payoffs.highest_payoff
            when t_bounds.bounds = 'match_payoff'
                then greatest(
                    run_payoffs.highest_payoff * condition_rounds.fewest_rounds,
                    run_payoffs.highest_payoff * condition_rounds.most_rounds
                )
            when t_bounds.bounds = 'payoff_gap'
                then
                    (run_payoffs.highest_payoff - run_payoffs.lowest_payoff)
                    * condition_rounds.most_rounds
            when t_bounds.bounds in ('round', 'rounds') then condition_rounds.most_rounds
        end as range_high
    from t_bounds
    cross join run_payoffs
    left join condition_rounds
        on t_bounds.condition = condition_rounds.condition
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
    from ranges
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
