with embeddings as (
    select * from {{ ref('stg_arena_embeddings') }}
),

answers as (
    select
        item_id as answer_id,
        question_id,
        player,
        embedding
    from embeddings
    where kind = 'answer'
),

-- Every unordered pair of two players' answers to the same question (answer_id_a <
-- answer_id_b), with the cosine similarity of their embeddings.
pairs as (
    select
        a.question_id,
        a.answer_id as answer_id_a,
        b.answer_id as answer_id_b,
        a.player as player_a,
        b.player as player_b,
        list_cosine_similarity(a.embedding, b.embedding) as similarity
    from answers as a
    inner join answers as b
        on
            a.question_id = b.question_id
            and a.answer_id < b.answer_id
            and a.player != b.player
)

select * from pairs
