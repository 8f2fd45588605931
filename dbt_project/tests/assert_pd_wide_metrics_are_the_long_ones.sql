-- The wide metrics hold exactly the long ones: every value of int_pd_metric_values at the
-- first replicate of each condition, and every value and interval end of
-- int_pd_condition_intervals at its condition, under the column the catalogue names (NULL
-- where the long row is NULL). One PIVOT writes every replicate row, so one replicate per
-- condition checks its column mapping at a fraction of the cost of them all.

with

wide_metrics as (
    select * from {{ ref('int_pd_wide_metrics') }}
),

metric_values as (
    select * from {{ ref('int_pd_metric_values') }}
),

condition_intervals as (
    select * from {{ ref('int_pd_condition_intervals') }}
),

-- the columns a condition gets from its replicates: those the wide rows hold
wide_columns as (
    select * from {{ ref('int_pd_metric_columns') }}
    where condition in ('mean', 'pooled')
),

first_replicates as (
    select
        condition,
        min(replicate) as replicate
    from metric_values
    group by condition
),

-- the wide rows checked long again: every column but the keys, as text
wide_text as (
    select
        wide_metrics.level,
        wide_metrics.condition,
        wide_metrics.replicate,
        columns(wide_metrics.* exclude (level, condition, replicate))::varchar  -- noqa: RF02
    from wide_metrics
    left join first_replicates
        on
            wide_metrics.condition = first_replicates.condition
            and wide_metrics.replicate = first_replicates.replicate
    where wide_metrics.level = 'condition' or first_replicates.replicate is not null
),

wide_cells as (
    select
        level,
        condition,
        replicate,
        column_name,
        cell
    from wide_text
    unpivot include nulls (
        cell for column_name in (columns(* exclude (level, condition, replicate)))
    )
),

long_cells as (
    select
        'replicate' as level,
        condition,
        replicate,
        column_name,
        value::varchar as cell
    from metric_values
    where
        column_name in (select wide_columns.column_name from wide_columns)
        and exists (
            select 1
            from first_replicates
            where
                first_replicates.condition = metric_values.condition
                and first_replicates.replicate = metric_values.replicate
        )
    union all
    select
        'condition' as level,
        condition,
        null as replicate,
        column_name,
        value::varchar as cell
    from condition_intervals
    union all
    select
        'condition' as level,
        condition,
        null as replicate,
        column_name || '_ci_low' as column_name,
        ci_low::varchar as cell
    from condition_intervals
    where interval_kind <> 'none'
    union all
    select
        'condition' as level,
        condition,
        null as replicate,
        column_name || '_ci_high' as column_name,
        ci_high::varchar as cell
    from condition_intervals
    where interval_kind <> 'none'
    union all
    select
        'condition' as level,
        condition,
        null as replicate,
        column_name || '_ci_note' as column_name,
        ci_note as cell
    from condition_intervals
    where interval_kind <> 'none'
),

mismatches as (
    select
        long_cells.level,
        long_cells.condition,
        long_cells.replicate,
        long_cells.column_name
    from long_cells
    left join wide_cells
        on
            long_cells.level = wide_cells.level
            and long_cells.condition = wide_cells.condition
            and long_cells.replicate is not distinct from wide_cells.replicate
            and long_cells.column_name = wide_cells.column_name
    where wide_cells.column_name is null or long_cells.cell is distinct from wide_cells.cell
)

select * from mismatches
