{{ config(location=mart_location()) }}

-- Position bias of each judge, and of all judges together (judge '(all judges)'), from the
-- verdicts on pairs holding none of the judge's own answers: how often the answer shown
-- first is preferred (a tie half), with a 95% Wilson interval, and, over the
-- pairs the judge saw in both orders, how often the preferred answer changed with the
-- order (a flip: the two first-position scores do not add up to 1), with a Wilson interval.

with outcomes as (
    select * from {{ ref('int_arena_pairwise_outcomes') }}
),

blind_outcomes as (
    select * from outcomes
    where not is_self
),

first_scores as (
    select
        judge,
        first_score
    from blind_outcomes
    union all
    select
        '(all judges)' as judge,
        first_score
    from blind_outcomes
),

first_rates as (
    select
        judge,
        count(*) as n_verdicts,
        sum(first_score) as first_wins
    from first_scores
    group by judge
),

swapped_pairs as (
    select
        judge,
        pair_id,
        is_named,
        sum(first_score) <> 1 as is_flip
    from blind_outcomes
    group by judge, pair_id, is_named
    having
        count(*) filter (where order_index = 0) = 1
        and count(*) filter (where order_index = 1) = 1
),

swaps as (
    select
        judge,
        is_flip
    from swapped_pairs
    union all
    select
        '(all judges)' as judge,
        is_flip
    from swapped_pairs
),

flip_counts as (
    select
        judge,
        count(*) as n_swapped_pairs,
        count(*) filter (where is_flip) as n_flips
    from swaps
    group by judge
),

final as (
    select
        first_rates.judge,
        first_rates.judge = '(all judges)' as is_all_judges,
        first_rates.n_verdicts,
        first_rates.first_wins / first_rates.n_verdicts as first_win_rate,
        wilson_count_low(first_rates.first_wins, first_rates.n_verdicts)
            as first_win_rate_ci_low,
        wilson_count_high(first_rates.first_wins, first_rates.n_verdicts)
            as first_win_rate_ci_high,
        coalesce(flip_counts.n_swapped_pairs, 0) as n_swapped_pairs,
        coalesce(flip_counts.n_flips, 0) as n_flips,
        flip_counts.n_flips / flip_counts.n_swapped_pairs as flip_rate,
        wilson_count_low(flip_counts.n_flips, flip_counts.n_swapped_pairs)
            as flip_rate_ci_low,
        wilson_count_high(flip_counts.n_flips, flip_counts.n_swapped_pairs)
            as flip_rate_ci_high
    from first_rates
    left join flip_counts
        on first_rates.judge = flip_counts.judge
    order by is_all_judges desc, first_rates.judge asc
)

select * from final
