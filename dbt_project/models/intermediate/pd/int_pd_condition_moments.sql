-- What each condition's replicates give of every metric of the catalogue that a condition row
-- gets from its replicates (int_pd_metric_columns: condition 'mean' or 'pooled'), for its
-- interval (int_pd_condition_intervals): the number of replicates that define the metric, their
-- mean and standard deviation, a rate's effective trials n^2 / sum(1 / trials_i) (the variance
-- of a mean of n binomial shares is p (1 - p) / n^2 x sum(1 / trials_i)), the successes and
-- trials pooled over the replicates, and the range the metric can take in the condition (the
-- catalogue's bounds: a share's [0, 1], a payoff per round's the run's lowest to highest
-- payoff, a match's total those times the rounds its condition's matches played, ...).

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

-- the range each metric can take in its condition; NULL: unbounded
ranges as (
    select
        moments.*,
        metric_columns.metric,
        metric_columns.side,
        metric_columns.is_rate,
        metric_columns.interval_kind,
        metric_columns.condition as condition_rule,
        case
            when metric_columns.is_rate then 0.0
            when metric_columns.bounds = 'payoff' then run_payoffs.lowest_payoff
            when metric_columns.bounds = 'match_payoff'
                then least(
                    run_payoffs.lowest_payoff * condition_rounds.fewest_rounds,
                    run_payoffs.lowest_payoff * condition_rounds.most_rounds
                )
            when metric_columns.bounds = 'payoff_gap'
                then
                    (run_payoffs.lowest_payoff - run_payoffs.highest_payoff)
                    * condition_rounds.most_rounds
            when metric_columns.bounds = 'round' then 1.0
            when metric_columns.bounds = 'rounds' then 0.0
        end as range_low,
        case
            when metric_columns.is_rate then 1.0
            when metric_columns.bounds = 'payoff' then run_payoffs.highest_payoff
            when metric_columns.bounds = 'match_payoff'
                then greatest(
                    run_payoffs.highest_payoff * condition_rounds.fewest_rounds,
                    run_payoffs.highest_payoff * condition_rounds.most_rounds
                )
            when metric_columns.bounds = 'payoff_gap'
                then
                    (run_payoffs.highest_payoff - run_payoffs.lowest_payoff)
                    * condition_rounds.most_rounds
            when metric_columns.bounds in ('round', 'rounds') then condition_rounds.most_rounds
        end as range_high
    from moments
    inner join metric_columns
        on moments.column_name = metric_columns.column_name
    cross join run_payoffs
    left join condition_rounds
        on moments.condition = condition_rounds.condition
)

select * from ranges
