-- How far arena_bradley_terry stretches each arm of its reflected (basic) bootstrap
-- interval: sqrt(n / (n - 1)) * t(0.975, n - 1) / z(0.975), with n the questions that hold
-- scored verdicts (the units the bootstrap resamples), as the leaderboard stretches its
-- percentile interval. The plain percentile interval of the Elo held 91% of planted
-- strengths at 20 questions (docs/pairwise_judging.md, "Which interval"). NULL under two
-- such questions (no interval).

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

question_count as (
    select count(distinct question_id) as n_questions
    from outcomes
    where is_scored
),

expansion as (
    select
        n_questions,
        {{ arena_interval_arm_factor('n_questions') }} as arm_factor
    from question_count
)

select * from expansion
