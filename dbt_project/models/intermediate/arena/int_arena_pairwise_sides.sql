-- Each valid verdict seen from both of its answers: one row per verdict and author in the
-- pair, with that author's score in it (1 preferred, 0.5 a tie, 0 not; a strong verdict
-- counts as a plain one here: the bias measures are shares of verdicts).

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

sides as (
    select
        pair_id,
        question_id,
        judge,
        order_index,
        is_named,
        is_self,
        is_scored,
        first_player as player,
        second_player as opponent,
        true as is_first,
        first_score as score
    from outcomes
    union all
    select
        pair_id,
        question_id,
        judge,
        order_index,
        is_named,
        is_self,
        is_scored,
        second_player as player,
        first_player as opponent,
        false as is_first,
        1 - first_score as score
    from outcomes
),

final as (
    select
        *,
        judge = player as is_own_answer
    from sides
)

select * from final
