{{ config(location=mart_location()) }}

-- Self bias of each judge that judged pairs holding its own answer (the self arm, or an
-- imported study that let judges judge themselves), and of all of them together (judge
-- '(all judges)'): the share of those verdicts its own answer won (a tie half) minus the
-- share other judges gave the same author against the same opponents, blind and scored;
-- a 95% Agresti-Caffo interval of the difference.

with sides as (
    select * from {{ ref('int_arena_pairwise_sides') }}
),

own_verdicts as (
    select
        judge,
        player,
        opponent,
        score
    from sides
    where is_own_answer and not is_named
),

own_opponents as (
    select distinct
        judge as player,
        opponent
    from own_verdicts
),

peer_verdicts as (
    select
        sides.player,
        sides.score
    from sides
    inner join own_opponents
        on sides.player = own_opponents.player and sides.opponent = own_opponents.opponent
    where sides.is_scored
),

both_kinds as (
    select
        judge,
        score,
        true as is_own
    from own_verdicts
    union all
    select
        '(all judges)' as judge,
        score,
        true as is_own
    from own_verdicts
    union all
    select
        player as judge,
        score,
        false as is_own
    from peer_verdicts
    union all
    select
        '(all judges)' as judge,
        score,
        false as is_own
    from peer_verdicts
),

rates as (
    select
        judge,
        {{ arena_arm_wins('is_own', 'self', 'peer') }}
    from both_kinds
    group by judge
    having count(*) filter (where is_own) > 0
),

final as (
    select
        judge,
        judge = '(all judges)' as is_all_judges,
        {{ arena_arm_win_rates('self', 'peer', 'self_bias') }}
    from rates
    order by is_all_judges desc, judge asc
)

select * from final
