{#- The leaderboard of every tournament of the series, as the tournament's own build wrote it
    (leaderboard.parquet, copied into tournaments/<k>-<run_id>/). -#}
with

leaderboards as (
    select *
    from
        read_parquet(
            pdbench_run_dir() || '/tournaments/*/leaderboard.parquet', filename = true
        )
),

renamed as (
    select
        regexp_extract(filename, '([^/]+)/[^/]+$', 1) as tournament_folder,
        player,
        score,
        ci_low,
        ci_high,
        has_enough_data,
        n_judgments,
        normalization
    from leaderboards
    -- an empty leaderboard is one all-NULL row
    where player is not null
)

select * from renamed
