-- calls_summary.parquet holds exactly one run-level row when the run made a provider call
-- (its agent rows then say who made it), and none when it made none (policies alone)
with

levels as (
    select
        count(*) filter (where level = 'run') as n_run_rows,
        count(*) filter (where level = 'agent') as n_agent_rows
    from {{ ref('pd_calls_summary') }}
)

select * from levels
where n_run_rows != (n_agent_rows > 0)::integer
