{{ config(materialized='table') }}

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

scoring as (
    select * from {{ ref('stg_arena_scoring') }}
),

roles as (
    select
        player,
        role
    from {{ ref('stg_arena_players') }}
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
        sum(n_judges) filter (where is_scored) as n_judgments,
        count(*) filter (where is_question_kept and not is_answer_valid) as n_answers_invalid,
        -- scored as they stand, and counted: a judge may have scored half an answer; NULL
        -- when the answers did not record truncation (schema version 1)
        (sum(is_answer_truncated::integer) filter (where is_scored))::bigint
            as n_answers_truncated,
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
        coalesce(roles.role, 'player') as role,
        answers_per_player.score,
        answers_per_player.raw_score,
        answers_per_player.score_others_questions,
        answers_per_player.weighted_score,
        coalesce(answers_per_player.n_answers, 0) as n_answers,
        coalesce(answers_per_player.n_judgments, 0)::integer as n_judgments,
        coalesce(answers_per_player.n_answers_others_questions, 0) as n_answers_others_questions,
        coalesce(answers_per_player.n_answers_invalid, 0) as n_answers_invalid,
        coalesce(answers_per_player.n_answers_unjudged, 0) as n_answers_unjudged,
        answers_per_player.n_answers_truncated
    from players
    left join answers_per_player
        on players.player = answers_per_player.player
    left join roles
        on players.player = roles.player
),

-- A score resting on fewer valid judgements than scoring.min_judgments is not ranked.
with_data_check as (
    select
        player_scores.*,
        scoring.min_judgments,
        coalesce(
            player_scores.score is not null
            and player_scores.n_judgments >= scoring.min_judgments,
            false
        ) as has_enough_data
    from player_scores
    cross join scoring
),

-- Competition ranking ("1224") among the players with enough data: equal scores (at 9
-- decimals) share the best rank, the next rank skips. A judge-only participant answers
-- nothing: it is listed as 'judge only', never ranked.
ranked as (
    select
        *,
        case
            when has_enough_data then 'ranked'
            when role = 'judge' then 'judge only'
            else 'insufficient data'
        end as status,
        case
            when has_enough_data
                then rank() over (
                    partition by has_enough_data
                    order by {{ comparable('score') }} desc nulls last
                )
        end as rank
    from with_data_check
)

select * from ranked
