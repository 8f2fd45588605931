-- A vote sent twice (a double click, a resent request) keeps its vote_id: counted once,
-- as first written.
with source as (
    select *
    from {{ read_run_source('arena', 'audience_votes') }}
),

numbered as (
    select
        *,
        row_number() over (partition by vote_id order by created_at, voter, score) as copy_index
    from source
    where vote_id is not null and answer_id is not null
),

renamed as (
    select
        vote_id,
        answer_id,
        voter,
        score,
        run_id,
        schema_version,
        created_at::timestamp as created_at
    from numbered
    where copy_index = 1
)

select * from renamed
