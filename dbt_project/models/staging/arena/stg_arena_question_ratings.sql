{{ config(tags=['arena_questions']) }}

with source as (
    select *
    from {{ read_run_source('arena', 'question_ratings') }}
),

renamed as (
    select
        question_id,
        rater,
        attempts as n_attempts,
        presentation_index,
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid and score is not null, false) as is_valid,
        case when is_valid then score end as score
    from source
    where question_id is not null and rater is not null
)

select * from renamed
