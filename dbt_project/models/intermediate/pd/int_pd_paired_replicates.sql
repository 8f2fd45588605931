{{ config(materialized='table') }}

-- For every compared pair of conditions, the replicates both finished (ok), and in each the
-- paired difference condition_1 minus condition_2 of every metric with an interval (NULL
-- when either side is): one row per pair, replicate and metric column, with both values, the
-- larger of their trials (a rate's), the replicate's position among the pair's common
-- replicates and their count.

with

pairs as (
    select * from {{ ref('int_pd_condition_pairs') }}
),

replicates as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

metric_values as (
    select * from {{ ref('int_pd_metric_values') }}
),

metric_columns as (
    select * from {{ ref('int_pd_metric_columns') }}
    where interval_kind <> 'none'
),

common_replicates as (
    select
        pairs.condition_1,
        pairs.condition_2,
        first_side.replicate,
        row_number() over (
            partition by pairs.condition_1, pairs.condition_2 order by first_side.replicate
        ) as pair_position,
        count(*) over (partition by pairs.condition_1, pairs.condition_2) as n_common
    from pairs
    inner join replicates as first_side
        on pairs.condition_1 = first_side.condition
    inner join replicates as second_side
        on
            pairs.condition_2 = second_side.condition
            and first_side.replicate = second_side.replicate
),

paired as (
    select
        common_replicates.condition_1,
        common_replicates.condition_2,
        common_replicates.replicate,
        metric_columns.column_name as metric,
        first_values.value - second_values.value as difference,
        first_values.value as value_1,
        second_values.value as value_2,
        greatest(first_values.n_trials, second_values.n_trials) as n_trials,
        common_replicates.pair_position,
        common_replicates.n_common
    from common_replicates
    cross join metric_columns
    inner join metric_values as first_values
        on
            common_replicates.condition_1 = first_values.condition
            and common_replicates.replicate = first_values.replicate
            and metric_columns.column_name = first_values.column_name
    inner join metric_values as second_values
        on
            common_replicates.condition_2 = second_values.condition
            and common_replicates.replicate = second_values.replicate
            and metric_columns.column_name = second_values.column_name
)

select * from paired
