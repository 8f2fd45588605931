-- Each valid verdict seen from both of its answers: one row per verdict and author in the
-- pair, with that author's score in it (1 preferred, 0.5 a tie, 0 not; a strong verdict
-- counts as a plain one here: the bias measures are shares of verdicts).

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

sides as (
    {% for own, other, is_first, score in [
        ('first', 'second', 'true', 'first_score'),
        ('second', 'first', 'false', '1 - first_score'),
    ] %}
    select
        pair_id,
        question_id,
        judge,
        order_index,
        is_named,
        is_self,
        is_scored,
        {{ own }}_player as player,
        {{ other }}_player as opponent,
        {{ is_first }} as is_first,
        {{ score }} as score
    from outcomes
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

final as (
    select
        *,
        judge = player as is_own_answer
    from sides
)

select * from final
