with source as (
    select *
    from {{ read_run_source('arena', 'self_assessments') }}
),

renamed as (
    select
        answer_id,
        question_id,
        answerer,
        attempts as n_attempts,
        {{ arena_reply_columns('predicted_score') }}
    from source
    where answer_id is not null and answerer is not null
)

select * from renamed
