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
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid and predicted_score is not null, false) as is_valid,
        case when is_valid then predicted_score end as predicted_score
    from source
    where answer_id is not null and answerer is not null
)

select * from renamed
