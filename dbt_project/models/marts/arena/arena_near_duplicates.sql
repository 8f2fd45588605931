{{ config(location=mart_location()) }}

with similarity as (
    select * from {{ ref('int_arena_question_similarity') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

questions as (
    select * from {{ ref('stg_arena_questions') }}
),

-- Pairs at or above scoring.diversity.near_duplicate, same player or across players.
near_duplicates as (
    select
        similarity.question_id_a,
        similarity.question_id_b,
        similarity.player_a,
        similarity.player_b,
        similarity.is_same_player,
        similarity.similarity,
        scoring.diversity_near_duplicate as near_duplicate
    from similarity
    cross join scoring
    where similarity.similarity >= scoring.diversity_near_duplicate
),

final as (
    select
        near_duplicates.*,
        questions_a.question_text as question_text_a,
        questions_b.question_text as question_text_b
    from near_duplicates
    left join questions as questions_a
        on near_duplicates.question_id_a = questions_a.question_id
    left join questions as questions_b
        on near_duplicates.question_id_b = questions_b.question_id
    order by
        near_duplicates.similarity desc,
        near_duplicates.question_id_a asc,
        near_duplicates.question_id_b asc
)

select * from final
