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
        {{ arena_reply_columns('verdict') }}
    from source
    where pair_id is not null and judge is not null
)

select * from renamed
