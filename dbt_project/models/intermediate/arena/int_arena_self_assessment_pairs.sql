with self_assessments as (
    select * from {{ ref('stg_arena_self_assessments') }}
),

answer_scores as (
    select * from {{ ref('int_arena_answer_scores') }}
),

-- actual_score is the raw mean of the answer's valid judgements: the judges' own 0..10
-- scale, which is what the player was asked to predict; actual_normalized_score is the
-- normalised mean the leaderboard ranks by
pairs as (
    select
        self_assessments.answer_id,
        self_assessments.question_id,
        self_assessments.answerer as player,
        self_assessments.is_valid,
        self_assessments.predicted_score::double as predicted_score,
        answer_scores.raw_score as actual_score,
        answer_scores.score as actual_normalized_score,
        self_assessments.predicted_score - answer_scores.raw_score as signed_error,
        self_assessments.predicted_score - answer_scores.score as signed_error_normalized,
        coalesce(
            self_assessments.is_valid and answer_scores.raw_score is not null, false
        ) as is_paired
    from self_assessments
    left join answer_scores
        on self_assessments.answer_id = answer_scores.answer_id
)

select * from pairs
