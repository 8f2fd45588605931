-- The bootstrap of a mean over n questions spreads sqrt((n - 1) / n) times too little, and
-- its normal quantile ignores that the spread is estimated: the leaderboard stretches each
-- arm of the percentile interval by sqrt(n / (n - 1)) * t(0.975, n - 1) / z(0.975) (an
-- expanded percentile interval, after Hesterberg), with n the kept questions. NULL with a
-- single kept question (no interval). Rounded to 1e-9, so that it reads the same everywhere.
with questions as (
    select * from {{ ref('int_arena_question_quality') }}
),

kept_count as (
    select count(*) as n_kept
    from questions
    where is_kept
),

expansion as (
    select
        n_kept,
        {{ arena_interval_arm_factor('n_kept') }} as arm_factor
    from kept_count
)

select * from expansion
