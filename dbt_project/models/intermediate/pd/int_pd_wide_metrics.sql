{#- The PD's long metrics made wide, for the people-facing marts: one row per ok replicate
    (level 'replicate') and per condition (level 'condition'), one column per metric column of
    the catalogue in its order (a condition's mean or pooled share), and at condition level
    each interval's `<column>_ci_low`, `_ci_high` and `_ci_note`. The column lists are the
    catalogue's rows, read by DuckDB's PIVOT when it runs. -#}
{{ config(materialized='table') }}

{%- set metric_columns = 'select column_name from ' ~ ref('int_pd_metric_columns')
    ~ " where condition in ('mean', 'pooled') order by column_position" -%}
{%- set interval_columns = 'select column_name from ' ~ ref('int_pd_metric_columns')
    ~ " where interval_kind <> 'none' order by column_position" %}

with

metric_values as (
    select * from {{ ref('int_pd_metric_values') }}
),

condition_intervals as (
    select * from {{ ref('int_pd_condition_intervals') }}
),

replicate_metrics as (
    pivot (
        select
            condition,
            replicate,
            column_name,
            value
        from metric_values
    )
    on column_name in ({{ metric_columns }})
    using first(value)
    group by condition, replicate
),

condition_metrics as (
    pivot (
        select
            condition,
            column_name,
            value
        from condition_intervals
    )
    on column_name in ({{ metric_columns }})
    using first(value)
    group by condition
),

condition_interval_columns as (
    pivot (
        select
            condition,
            column_name,
            ci_low,
            ci_high,
            ci_note
        from condition_intervals
    )
    on column_name in ({{ interval_columns }})
    using first(ci_low) as ci_low, first(ci_high) as ci_high, first(ci_note) as ci_note
    group by condition
),

both_levels as (
    select
        'replicate' as level,
        *
    from replicate_metrics
    union all by name
    select
        'condition' as level,
        condition_metrics.*,
        columns(condition_interval_columns.* exclude (condition))  -- noqa: RF02
    from condition_metrics
    left join condition_interval_columns
        on condition_metrics.condition = condition_interval_columns.condition
)

select * from both_levels
