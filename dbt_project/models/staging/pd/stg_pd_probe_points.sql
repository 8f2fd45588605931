{#- Ashlock's fingerprint probes of the run: every side of a condition that is a PROBE
    policy, with its point, read from the conditions of the manifest's config (the
    `fingerprint` section's expansion, and any probe written by hand). -#}
with

source_manifest as (
    select *
    from {{ read_run_source('run', 'manifest') }}
),

conditions as (
    select unnest(from_json(config -> 'conditions', '["JSON"]')) as condition_config
    from source_manifest
),

sides as (
    select
        condition_config ->> 'name' as condition,
        'agent_a' as probe_side,
        'agent_b' as probed_side,
        condition_config -> 'agent_a' as agent_config
    from conditions
    union all
    select
        condition_config ->> 'name' as condition,
        'agent_b' as probe_side,
        'agent_a' as probed_side,
        condition_config -> 'agent_b' as agent_config
    from conditions
),

probe_points as (
    select
        condition,
        probe_side,
        probed_side,
        (agent_config -> 'point' ->> 0)::double as probe_x,
        (agent_config -> 'point' ->> 1)::double as probe_y
    from sides
    where agent_config ->> 'policy' = 'PROBE'
)

select * from probe_points
