{{ config(materialized='table', tags=['arena_questions']) }}

with recursive ratings as (
    select * from {{ ref('stg_arena_question_ratings') }}
),

questions as (
    select * from {{ ref('stg_arena_questions') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

ratings_as_scores as (
    select
        ratings.question_id as item_id,
        questions.author as item_owner,
        ratings.rater as judge,
        ratings.score,
        ratings.is_valid
    from ratings
    left join questions
        on ratings.question_id = questions.question_id
),

{{ arena_normalized_scores('ratings_as_scores', 'scoring') }},

renamed as (
    select
        * exclude (item_id, item_owner, judge),
        item_id as question_id,
        item_owner as author,
        judge as rater
    from normalized_scores
)

select * from renamed
