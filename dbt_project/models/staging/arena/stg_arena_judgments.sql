-- the plain judgements, the ones scored: the name and position arms are measured apart
-- (stg_arena_judgment_arms, arena_score_arms), never scored
with judgment_arms as (
    select * from {{ ref('stg_arena_judgment_arms') }}
),

plain as (
    select * exclude (arm)
    from judgment_arms
    where arm = 'plain'
)

select * from plain
