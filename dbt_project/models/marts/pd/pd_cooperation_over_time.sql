{{ config(location=mart_location()) }}

with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

ok_rounds as (
    select
        condition,
        replicate,
        round_index,
        action_a,
        action_b,
        n_cooperators
    from round_features
    where match_status = 'ok'
),

replicate_rows as (
    select
        'replicate' as level,
        condition,
        replicate,
        round_index,
        1 as n_replicates,
        (action_a = 'C')::integer::double as cooperation_rate_a,
        (action_b = 'C')::integer::double as cooperation_rate_b,
        n_cooperators / 2 as cooperation_rate,
        null::double as cooperation_rate_sd,
        null::double as cooperation_band_low,
        null::double as cooperation_band_high
    from ok_rounds
),

round_sums as (
    select
        condition,
        round_index,
        count(*) as n_replicates,
        count(*) filter (where action_a = 'C') as n_cooperations_a,
        count(*) filter (where action_b = 'C') as n_cooperations_b,
        sum(n_cooperators)::bigint as sum_cooperators,
        sum(n_cooperators * n_cooperators)::bigint as sum_squared_cooperators
    from ok_rounds
    group by condition, round_index
),

condition_rows as (
    select
        'condition' as level,
        condition,
        null::integer as replicate,
        round_index,
        n_replicates,
        n_cooperations_a / n_replicates as cooperation_rate_a,
        n_cooperations_b / n_replicates as cooperation_rate_b,
        sum_cooperators / (2 * n_replicates) as cooperation_rate,
        -- sample standard deviation of the replicates' rates, from exact integer sums so
        -- that the result does not depend on the order rows are summed in
        case
            when n_replicates > 1
                then sqrt(
                    (n_replicates * sum_squared_cooperators - sum_cooperators * sum_cooperators)
                    / (n_replicates * (n_replicates - 1))
                ) / 2
        end as cooperation_rate_sd
    from round_sums
),

condition_rows_with_band as (
    select
        *,
        -- the band the viewer draws: one standard deviation around the mean, within [0, 1]
        greatest(0, cooperation_rate - coalesce(cooperation_rate_sd, 0)) as cooperation_band_low,
        least(1, cooperation_rate + coalesce(cooperation_rate_sd, 0)) as cooperation_band_high
    from condition_rows
),

both_levels as (
    select * from condition_rows_with_band
    union all
    select * from replicate_rows
)

select * from both_levels
-- a fixed row order, so the file is the same on every build: per condition its mean curve
-- (replicate NULL) first, then each replicate's. No sort on `level`: comparing that string
-- on every row cost more than the rest of the sort.
order by condition, replicate nulls first, round_index
