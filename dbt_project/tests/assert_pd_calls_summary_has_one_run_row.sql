-- calls_summary.parquet always holds exactly one run-level row, even without any call
with

run_rows as (
    select count(*) as n_run_rows
    from {{ ref('pd_calls_summary') }}
    where level = 'run'
)

select * from run_rows
where n_run_rows != 1
