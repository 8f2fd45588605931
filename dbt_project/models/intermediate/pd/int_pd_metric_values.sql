{#- Measure long: one row per finished (ok) match and column of the catalogue
    (int_pd_metric_columns): the value of that metric in that match, and the counts behind
    it (its trials and, for a pooled share, its successes). Every condition mean, interval
    and paired difference is computed from here, grouped by metric. -#}
{{ config(materialized='table') }}

with

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
    where match_status = 'ok'
),

metric_columns as (
    select * from {{ ref('int_pd_metric_columns') }}
),

-- every numeric column of a match as a number (flags as 0 and 1)
match_numbers as (
    select
        match_id,
        condition,
        replicate,
        columns(* exclude (match_id, condition, replicate, match_status, name_a, name_b))::double
    from match_metrics
),

-- the columns the catalogue names: its metrics, their trials and their successes
named_columns as (
    select column_name from metric_columns
    union
    select trials_column from metric_columns
    union
    select successes_column from metric_columns
),

-- one row each
all_values as (
    select *
    from match_numbers
    unpivot include nulls (
        value for column_name in (columns(* exclude (match_id, condition, replicate)))
    )
),

match_values as (
    select all_values.*
    from all_values
    inner join named_columns
        on all_values.column_name = named_columns.column_name
),

metric_values as (
    select
        match_values.match_id,
        match_values.condition,
        match_values.replicate,
        metric_columns.column_name,
        metric_columns.metric,
        metric_columns.side,
        match_values.value,
        trials.value as n_trials,
        successes.value as n_successes
    from metric_columns
    inner join match_values
        on metric_columns.column_name = match_values.column_name
    left join match_values as trials
        on
            match_values.match_id = trials.match_id
            and metric_columns.trials_column = trials.column_name
    left join match_values as successes
        on
            match_values.match_id = successes.match_id
            and metric_columns.successes_column = successes.column_name
)

select * from metric_values
