{{ config(materialized='table') }}

with recursive judgments as (
    select * from {{ ref('stg_arena_judgments') }}
),

answers as (
    select * from {{ ref('stg_arena_answers') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

judgments_as_scores as (
    select
        judgments.answer_id as item_id,
        answers.answerer as item_owner,
        judgments.judge,
        judgments.question_id,
        judgments.score,
        judgments.is_valid,
        judgments.n_attempts
    from judgments
    left join answers
        on judgments.answer_id = answers.answer_id
),

{{ arena_normalized_scores('judgments_as_scores', 'scoring') }},

renamed as (
    select
        * exclude (item_id, item_owner),
        item_id as answer_id,
        item_owner as answerer
    from normalized_scores
)

select * from renamed
