{{ config(location=mart_location()) }}

with

ratings as (
    select * from {{ ref('stg_arena_question_ratings') }}
),

normalized_ratings as (
    select * from {{ ref('int_arena_ratings_normalized') }}
),

rating_detail as (
    select
        ratings.question_id,
        normalized_ratings.author,
        ratings.rater,
        ratings.score,
        normalized_ratings.normalized_score,
        ratings.is_valid,
        ratings.n_attempts,
        ratings.raw_reply
    from ratings
    inner join normalized_ratings
        on
            ratings.question_id = normalized_ratings.question_id
            and ratings.rater = normalized_ratings.rater
)

select * from rating_detail
order by question_id, rater
