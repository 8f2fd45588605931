{{ config(location=mart_location()) }}

-- Name bias (the named arm): for each judge and each author, the share of verdicts the
-- author's answer won when the judge was shown the authors' names minus the share it won
-- from the same judge blind (a tie half); and for each author over all judges (judge
-- '(all judges)'). Verdicts on pairs holding the judge's own answer are left out. A 95%
-- Agresti-Caffo interval of the difference.

with sides as (
    select * from {{ ref('int_arena_pairwise_sides') }}
),

others as (
    select
        judge,
        player,
        is_named,
        score
    from sides
    where not is_self
    union all
    select
        '(all judges)' as judge,
        player,
        is_named,
        score
    from sides
    where not is_self
),

rates as (
    select
        judge,
        player,
        {{ arena_arm_wins('is_named', 'named', 'blind') }}
    from others
    group by judge, player
    having count(*) filter (where is_named) > 0
),

final as (
    select
        judge,
        judge = '(all judges)' as is_all_judges,
        player,
        {{ arena_arm_win_rates('named', 'blind', 'name_bias') }}
    from rates
    order by is_all_judges desc, judge asc, player asc
)

select * from final
