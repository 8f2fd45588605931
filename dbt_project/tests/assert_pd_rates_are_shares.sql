-- Every rate of the PD's catalogue (is_rate) is a share in [0, 1], in every match and at
-- every condition, and so are its interval's ends: the wide marts (aggregates.parquet,
-- agent_metrics.parquet) are these values pivoted. NULL passes: a rate whose condition never
-- occurred.

with

metric_values as (
    select * from {{ ref('int_pd_metric_values') }}
),

condition_intervals as (
    select * from {{ ref('int_pd_condition_intervals') }}
),

metric_columns as (
    select * from {{ ref('int_pd_metric_columns') }}
),

match_violations as (
    select
        metric_values.condition,
        metric_values.replicate,
        metric_values.column_name
    from metric_values
    inner join metric_columns
        on metric_values.column_name = metric_columns.column_name
    where
        metric_columns.is_rate
        and (metric_values.value < 0 or metric_values.value > 1 or isnan(metric_values.value))
),

condition_violations as (
    select
        condition_intervals.condition,
        null::integer as replicate,
        condition_intervals.column_name
    from condition_intervals
    inner join metric_columns
        on condition_intervals.column_name = metric_columns.column_name
    where
        metric_columns.is_rate
        and (
            condition_intervals.value not between 0 and 1
            or condition_intervals.ci_low < 0
            or condition_intervals.ci_high > 1
        )
)

select * from match_violations
union all
select * from condition_violations
