{{ config(materialized='table') }}

with draws as (
    select * from {{ ref('int_arena_bootstrap_draws') }}
),

answers as (
    select * from {{ ref('int_arena_answer_scores') }}
),

player_scores as (
    select * from {{ ref('int_arena_player_scores') }}
),

draw_counts as (
    select
        replicate,
        question_id,
        count(*) as n_drawn
    from draws
    group by replicate, question_id
),

replicate_scores as (
    select
        draw_counts.replicate,
        answers.answerer as player,
        sum(draw_counts.n_drawn * answers.score) / sum(draw_counts.n_drawn) as score
    from draw_counts
    inner join answers
        on draw_counts.question_id = answers.question_id
    inner join player_scores
        on answers.answerer = player_scores.player
    where answers.is_scored and player_scores.has_enough_data
    group by draw_counts.replicate, answers.answerer
),

ranked as (
    select
        *,
        rank() over (partition by replicate order by {{ comparable('score') }} desc) as rank
    from replicate_scores
)

select * from ranked
