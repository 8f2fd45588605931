{{ config(materialized='parquet_copy', location=mart_location(), tags=['coin']) }}

with

flips as (
    select *
    from read_json(
        pdbench_run_dir() || '/flips.jsonl',
        format = 'newline_delimited',
        columns = {flip: 'bigint', player: 'varchar', call: 'varchar', side: 'varchar'}
    )
),

scores as (
    select
        player,
        count(*) as n_flips,
        count(*) filter (where call = side) as n_right,
        count(*) filter (where call = side) / count(*) as right_rate
    from flips
    group by player
)

select * from scores
