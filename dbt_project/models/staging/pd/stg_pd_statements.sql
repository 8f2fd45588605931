with

source_statements as (
    select *
    from {{ read_run_source('pd', 'statements') }}
),

renamed as (
    select
        match_id,
        condition,
        replicate,
        side,
        agent_name,
        valid as is_valid,
        attempts as n_attempts,
        truncated as is_truncated,
        first_p,
        cc_p,
        cd_p,
        dc_p,
        dd_p,
        stated_points_per_round
    from source_statements
    -- a torn last line (crash while writing) reads as an all-NULL row
    where match_id is not null
)

select * from renamed
