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
        {{ arena_reply_columns('score') }},
        coalesce(rationale_asked, false) as rationale_asked,
        rationale,
        length(rationale) as rationale_length,
        coalesce(arm, 'plain') as arm
    from source
    where answer_id is not null and judge is not null
)

select * from renamed
