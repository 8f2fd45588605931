-- aggregates.parquet carries the intervals of its condition rows alone: every interval end
-- of a replicate row is NULL. (That each interval has both ends or neither, in order, is a
-- test of int_pd_condition_intervals.)

with

aggregates as (
    select * from {{ ref('pd_aggregates') }}
),

replicate_intervals as (
    select
        condition,
        replicate,
        coalesce(*columns('_ci_(low|high)$')) as any_interval_end
    from aggregates
    where level = 'replicate'
),

on_replicate_rows as (
    select
        condition,
        replicate
    from replicate_intervals
    where any_interval_end is not null
)

select * from on_replicate_rows
