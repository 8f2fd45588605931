with

source_matches as (
    select *
    from {{ read_run_source('pd', 'matches') }}
),

renamed as (
    select
        schema_version,
        run_id,
        match_id,
        condition,
        replicate,
        match_seed,
        agent_a_name,
        agent_b_name,
        agent_a_kind,
        agent_b_kind,
        horizon_type,
        planned_rounds,
        rounds_played,
        status as match_status,
        abort_reason,
        started_at as started_at_utc,
        finished_at as finished_at_utc
    from source_matches
    -- a torn last line (crash while writing) reads as an all-NULL row
    where run_id is not null
)

select * from renamed
