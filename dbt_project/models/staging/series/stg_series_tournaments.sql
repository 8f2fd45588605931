{#- The tournaments of a series (`pdbench leaderboard`): the manifests copied into
    tournaments/<k>-<run_id>/, numbered in the order they started (the folders' order). -#}
with

manifests as (
    select *
    from read_json(
        '{{ run_dir() }}/tournaments/*/run_manifest.json',
        format = 'auto',
        filename = true,
        columns = { run_id: 'VARCHAR', started_at: 'VARCHAR', config: 'JSON' }
    )
),

tournaments as (
    select
        regexp_extract(filename, '([^/]+)/[^/]+$', 1) as tournament_folder,
        run_id,
        started_at as started_at_utc,
        config,
        row_number() over (order by regexp_extract(filename, '([^/]+)/[^/]+$', 1))
            as tournament_index
    from manifests
)

select * from tournaments
