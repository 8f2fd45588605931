with source as (
    select *
    from {{ read_run_source('arena', 'judgments') }}
),

renamed as (
    select
        answer_id,
        question_id,
        judge,
        attempts as n_attempts,
        presentation_index,
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid and score is not null, false) as is_valid,
        case when is_valid then score end as score,
        coalesce(rationale_asked, false) as rationale_asked,
        rationale,
        length(rationale) as rationale_length,
        coalesce(arm, 'plain') as arm
    from source
    where answer_id is not null and judge is not null
)

select * from renamed
