with answers as (
    select * from {{ ref('int_arena_answer_scores') }}
),

questions as (
    select * from {{ ref('stg_arena_questions') }}
),

ratings as (
    select * from {{ ref('stg_arena_question_ratings') }}
),

judgments as (
    select * from {{ ref('stg_arena_judgments') }}
),

players as (
    select answerer as player from answers
    union
    select author as player from questions
    union
    select rater as player from ratings
    union
    select judge as player from judgments
),

answers_per_player as (
    select
        answerer as player,
        count(*) filter (where is_scored) as n_answers,
        count(*) filter (where is_question_kept and not is_answer_valid) as n_answers_invalid,
        count(*) filter (where is_question_kept and is_answer_valid and score is null)
            as n_answers_unjudged,
        avg(score) filter (where is_scored) as score,
        avg(raw_score) filter (where is_scored) as raw_score,
        avg(score) filter (where is_scored and not is_own_question) as score_others_questions,
        count(*) filter (where is_scored and not is_own_question) as n_answers_others_questions,
        sum(quality_weight * score) filter (where is_scored)
        / nullif(sum(quality_weight) filter (where is_scored), 0) as weighted_score
    from answers
    group by answerer
),

player_scores as (
    select
        players.player,
        answers_per_player.score,
        answers_per_player.raw_score,
        answers_per_player.score_others_questions,
        answers_per_player.weighted_score,
        coalesce(answers_per_player.n_answers, 0) as n_answers,
        coalesce(answers_per_player.n_answers_others_questions, 0) as n_answers_others_questions,
        coalesce(answers_per_player.n_answers_invalid, 0) as n_answers_invalid,
        coalesce(answers_per_player.n_answers_unjudged, 0) as n_answers_unjudged
    from players
    left join answers_per_player
        on players.player = answers_per_player.player
),

-- Competition ranking ("1224"): equal scores (at 9 decimals) share the best rank, the next
-- rank skips.
ranked as (
    select
        *,
        case
            when score is not null
                then rank() over (order by {{ comparable('score') }} desc nulls last)
        end as rank
    from player_scores
)

select * from ranked
