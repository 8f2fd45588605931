with source as (
    select *
    from {{ read_run_source('arena', 'pairwise_judgments') }}
),

renamed as (
    select
        pair_id,
        question_id,
        judge,
        first_player,
        second_player,
        first_answer_id,
        second_answer_id,
        order_index,
        is_named,
        attempts as n_attempts,
        prompt_sha256,
        raw_reply,
        run_id,
        schema_version,
        coalesce(is_valid and verdict is not null, false) as is_valid,
        case when is_valid then verdict end as verdict
    from source
    where pair_id is not null and judge is not null
)

select * from renamed
