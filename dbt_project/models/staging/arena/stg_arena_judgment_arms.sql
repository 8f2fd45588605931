with source as (
    select *
    from {{ read_run_source('arena', 'judgments') }}
),

renamed as (
    select
        answer_id,
        question_id,
        judge,
        coalesce(arm, 'plain') as arm,
        coalesce(is_valid and score is not null, false) as is_valid,
        case when is_valid then score end as score
    from source
    where answer_id is not null and judge is not null
)

select * from renamed
