-- every scored answer to another player's question, trick or ordinary: the rows robustness
-- and trick outcomes count (an author answering its own trick knows it)
with answers as (
    select * from {{ ref('int_arena_answer_scores') }}
    where is_scored and not is_own_question
),

questions as (
    select * from {{ ref('stg_arena_questions') }}
),

scoring as (
    select trick_fell_below from {{ ref('stg_arena_scoring') }}
),

joined as (
    select
        answers.answer_id,
        answers.question_id,
        answers.answerer,
        answers.question_author,
        questions.trick_kind,
        answers.score,
        coalesce(questions.is_trick, false) as is_trick,
        case
            when questions.is_trick then answers.score < scoring.trick_fell_below
        end as fell_for_trick
    from answers
    inner join questions
        on answers.question_id = questions.question_id
    cross join scoring
)

select * from joined
