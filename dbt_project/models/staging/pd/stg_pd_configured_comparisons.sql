{#- The pairs of conditions the config's `comparisons` section asks for, first minus second,
    in the order written; no rows when the section is absent (the automatic choice). -#}
with

source_manifest as (
    select *
    from {{ read_run_source('run', 'manifest') }}
),

pairs as (
    select unnest(from_json(config -> 'comparisons', '[["VARCHAR"]]')) as pair
    from source_manifest
),

configured as (
    select
        pair[1] as condition_1,
        pair[2] as condition_2
    from pairs
)

select * from configured
