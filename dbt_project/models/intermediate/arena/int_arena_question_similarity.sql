with embeddings as (
    select * from {{ ref('stg_arena_embeddings') }}
),

questions as (
    select
        item_id as question_id,
        player,
        embedding
    from embeddings
    where kind = 'question'
),

-- Every unordered pair of questions once (question_id_a < question_id_b), with the cosine
-- similarity of their embeddings.
pairs as (
    select
        a.question_id as question_id_a,
        b.question_id as question_id_b,
        a.player as player_a,
        b.player as player_b,
        a.player = b.player as is_same_player,
        list_cosine_similarity(a.embedding, b.embedding) as similarity
    from questions as a
    inner join questions as b
        on a.question_id < b.question_id
)

select * from pairs
