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
        {{ arena_reply_columns('score') }}
    from source
    where question_id is not null and rater is not null
)

select * from renamed
