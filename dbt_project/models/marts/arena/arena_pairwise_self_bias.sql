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
        count(*) filter (where is_own) as n_self,
        sum(score) filter (where is_own) as self_wins,
        count(*) filter (where not is_own) as n_peer,
        sum(score) filter (where not is_own) as peer_wins
    from both_kinds
    group by judge
    having count(*) filter (where is_own) > 0
),

final as (
    select
        judge,
        judge = '(all judges)' as is_all_judges,
        n_self,
        self_wins / n_self as self_win_rate,
        n_peer,
        peer_wins / nullif(n_peer, 0) as peer_win_rate,
        self_wins / n_self - peer_wins / nullif(n_peer, 0) as self_bias,
        {{ arena_share_difference_ci('self_wins', 'n_self', 'peer_wins', 'n_peer', 'low') }}
            as self_bias_ci_low,
        {{ arena_share_difference_ci('self_wins', 'n_self', 'peer_wins', 'n_peer', 'high') }}
            as self_bias_ci_high
    from rates
    order by is_all_judges desc, judge asc
)

select * from final
