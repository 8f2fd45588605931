{{ config(location=mart_location()) }}

with similarity as (
    select * from {{ ref('int_arena_question_similarity') }}
),

embeddings as (
    select * from {{ ref('stg_arena_embeddings') }}
),

answer_similarity as (
    select * from {{ ref('int_arena_answer_similarity') }}
),

-- Each answer pair seen from both of its players.
answer_pairs as (
    select
        player_a as player,
        similarity
    from answer_similarity
    union all
    select
        player_b as player,
        similarity
    from answer_similarity
),

-- A player's answer originality: 1 - the mean similarity of its answers to other players'
-- answers to the same question.
answer_originality as (
    select
        player,
        1 - avg(similarity) as answer_originality
    from answer_pairs
    group by player
),

player_scores as (
    select * from {{ ref('int_arena_player_scores') }}
),

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

-- Each pair seen from both of its questions.
directed as (
    select
        question_id_a as question_id,
        player_a as player,
        is_same_player,
        similarity
    from similarity
    union all
    select
        question_id_b as question_id,
        player_b as player,
        is_same_player,
        similarity
    from similarity
),

-- A question's novelty: 1 - its highest similarity to another player's question.
question_novelty as (
    select
        question_id,
        player,
        1 - max(similarity) filter (where not is_same_player) as novelty
    from directed
    group by question_id, player
),

own_pairs as (
    select
        similarity.player_a as player,
        avg(similarity.similarity) as mean_similarity,
        count(*) filter (
            where similarity.similarity >= scoring.diversity_near_duplicate
        ) as n_near_duplicate_pairs
    from similarity
    cross join scoring
    where similarity.is_same_player
    group by similarity.player_a
),

cross_pairs as (
    select
        directed.player,
        count(*) filter (
            where directed.similarity >= scoring.diversity_near_duplicate
        ) as n_cross_near_duplicates
    from directed
    cross join scoring
    where not directed.is_same_player
    group by directed.player
),

per_player as (
    select
        embeddings.player,
        count(*) as n_questions,
        1 - any_value(own_pairs.mean_similarity) as question_diversity,
        coalesce(any_value(own_pairs.n_near_duplicate_pairs), 0) as n_near_duplicate_pairs,
        coalesce(any_value(cross_pairs.n_cross_near_duplicates), 0) as n_cross_near_duplicates,
        avg(question_novelty.novelty) as novelty
    from embeddings
    left join own_pairs on embeddings.player = own_pairs.player
    left join cross_pairs on embeddings.player = cross_pairs.player
    left join question_novelty on embeddings.item_id = question_novelty.question_id
    where embeddings.kind = 'question'
    group by embeddings.player
),

-- The diversity score is the question diversity (novelty, how unlike the others' its
-- questions are, is reported beside it); z standardises it across the players that have
-- one (0 when they all share one value, or for a player with a single question).
scored as (
    select
        *,
        question_diversity as diversity_score
    from per_player
),

standardised as (
    select
        *,
        coalesce(
            (diversity_score - avg(diversity_score) over ())
            / nullif(stddev_pop(diversity_score) over (), 0),
            0
        ) as diversity_z
    from scored
),

final as (
    select
        standardised.player,
        standardised.n_questions,
        standardised.question_diversity,
        standardised.n_near_duplicate_pairs,
        standardised.n_cross_near_duplicates,
        standardised.novelty,
        answer_originality.answer_originality,
        standardised.diversity_score,
        standardised.diversity_z,
        player_scores.score,
        player_scores.rank,
        scoring.diversity_weight as weight,
        scoring.diversity_near_duplicate as near_duplicate,
        player_scores.score
        + scoring.diversity_weight * standardised.diversity_z as score_with_bonus
    from standardised
    cross join scoring
    left join answer_originality
        on standardised.player = answer_originality.player
    left join player_scores
        on standardised.player = player_scores.player
    order by standardised.diversity_score asc nulls last, standardised.player asc
)

select * from final
