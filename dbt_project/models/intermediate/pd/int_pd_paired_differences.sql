{#- For every compared pair of conditions and every metric defined in at least one common
    replicate: the mean paired difference (condition_1 minus condition_2), a two-sided
    sign-flip p-value and the 95% interval that inverts the same test, so that the interval
    excludes 0 exactly when p <= 0.05 (docs/pd_intervals.md, "Which interval, which p-value").

    Flipping the signs of a subset S of the differences d moves their sum below the observed
    one exactly when sum over S of (d - delta) >= 0, i.e. when the mean of d over S is at least
    delta. So the one-sided p-values of "the mean difference is delta" count subset means:
    p_greater(delta) = (u + #{subset means <= delta}) / N and p_less the same with >=, over the
    N flips (u: flips that negate no defined difference, and, with random flips, the observed
    sample itself counted once more: (1 + count) / (1 + B)). The p-value is
    min(1, 2 min(p_greater(0), p_less(0))); the interval is every delta whose two-sided p is
    above 0.05: from the (c + 1)-th smallest subset mean to the (c + 1)-th largest, with
    c = floor(N / 40) - u (Hartigan's subset means). When c < 0 no delta can be rejected (5
    replicates or fewer: p >= 2 / 32): NULL with the reason. Subset means are rounded to 9
    decimals, and both the p-value and the interval read the rounded means. A pair of more
    than pd_max_draws() common replicates gets the normal limit of the same test:
    z = |sum d| / sqrt(sum d^2), p = erfc(z / sqrt(2)) in log space (never 0), and the
    interval of every delta with |z(delta)| <= z(0.975): mean -+ z sqrt(SS / (n (n - z^2))),
    SS the sum of squared deviations. So does a pair of more than pd_exact_flip_max() common
    replicates in a run of more tests than random flips can serve (pd_uses_normal_limit). -#}

with

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

sign_flips as (
    select * from {{ ref('int_pd_sign_flips') }}
),

per_metric as (
    select
        condition_1,
        condition_2,
        metric,
        count(difference) as n_pairs,
        avg(difference order by replicate) as mean_difference,
        sum(difference order by replicate) as sum_of_differences,
        sum(difference * difference order by replicate) as sum_of_squares,
        var_pop(difference order by replicate) as variance,
        max(n_common) as n_common
    from paired_replicates
    group by condition_1, condition_2, metric
),

{{ pd_test_count_ctes('paired_replicates') }},

observed as (
    select
        per_metric.*,
        {{ pd_uses_normal_limit('per_metric.n_common', 'test_count.n_tests') }}
            as is_normal_limit
    from per_metric
    cross join test_count
),

-- per flip and metric, the mean of the differences it negates (the subset S)
subset_means as (
    select
        paired_replicates.condition_1,
        paired_replicates.condition_2,
        paired_replicates.metric,
        sign_flips.flip,
        bool_and(sign_flips.is_exact) as is_exact,
        round(
            sum(paired_replicates.difference) filter (where sign_flips.sign = -1)
            / nullif(
                count(paired_replicates.difference) filter (where sign_flips.sign = -1), 0
            ),
            9
        ) as subset_mean
    from paired_replicates
    inner join sign_flips
        on
            paired_replicates.n_common = sign_flips.sample_size
            and paired_replicates.pair_position = sign_flips.slot
    group by
        paired_replicates.condition_1,
        paired_replicates.condition_2,
        paired_replicates.metric,
        sign_flips.flip
),

flip_tallies as (
    select
        condition_1,
        condition_2,
        metric,
        bool_and(is_exact) as is_exact,
        count(*) as n_flips,
        -- u: the flips that negate no defined difference, and, with random flips, the
        -- observed sample counted once more
        count(*) filter (where subset_mean is null)
        + case when bool_and(is_exact) then 0 else 1 end as n_unmoved,
        count(*) + case when bool_and(is_exact) then 0 else 1 end as n_total,
        count(*) filter (where subset_mean <= 0) as n_at_or_below_0,
        count(*) filter (where subset_mean >= 0) as n_at_or_above_0
    from subset_means
    group by condition_1, condition_2, metric
),

-- c: how many of the smallest (and of the largest) subset means lie below the interval
interval_ranks as (
    select
        condition_1,
        condition_2,
        metric,
        n_total // 40 - n_unmoved as n_rejected_per_tail
    from flip_tallies
),

ranked_means as (
    select
        condition_1,
        condition_2,
        metric,
        subset_mean,
        row_number() over (
            partition by condition_1, condition_2, metric order by subset_mean
        ) as rank_from_low,
        row_number() over (
            partition by condition_1, condition_2, metric order by subset_mean desc
        ) as rank_from_high
    from subset_means
    where subset_mean is not null
),

flip_intervals as (
    select
        interval_ranks.condition_1,
        interval_ranks.condition_2,
        interval_ranks.metric,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_low = interval_ranks.n_rejected_per_tail + 1
        ) as ci_low,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_high = interval_ranks.n_rejected_per_tail + 1
        ) as ci_high
    from interval_ranks
    inner join ranked_means
        on
            interval_ranks.condition_1 = ranked_means.condition_1
            and interval_ranks.condition_2 = ranked_means.condition_2
            and interval_ranks.metric = ranked_means.metric
    where interval_ranks.n_rejected_per_tail >= 0
    group by interval_ranks.condition_1, interval_ranks.condition_2, interval_ranks.metric
),

normal_limits as (
    select
        condition_1,
        condition_2,
        metric,
        abs(sum_of_differences) / sqrt(sum_of_squares) as z,
        normal_two_sided_ln_p(abs(sum_of_differences) / sqrt(sum_of_squares))
            as ln_p,
        case
            when n_pairs > z_975() ^ 2
                then
                    z_975()
                    * sqrt(variance / (n_pairs - z_975() ^ 2))
        end as half_width
    from observed
    where is_normal_limit and sum_of_squares > 0
),

differences as (
    select
        observed.condition_1,
        observed.condition_2,
        observed.metric,
        observed.n_pairs,
        observed.mean_difference,
        {% for end, sign in [('low', '-'), ('high', '+')] %}
        {%- set normal_bound = 'observed.mean_difference ' ~ sign ~ ' normal_limits.half_width' %}
        case
            when observed.n_pairs < 2 or round(observed.variance, 12) = 0 then null
            when observed.is_normal_limit
                then interval_bound({{ normal_bound }})
            else flip_intervals.ci_{{ end }}
        end as ci_{{ end }},
        {% endfor %}
        case
            when observed.n_pairs < 2 then 'fewer than 2 paired replicates'
            when round(observed.variance, 12) = 0 then 'every paired difference is the same'
            when
                observed.is_normal_limit and normal_limits.half_width is null
                or not observed.is_normal_limit and flip_intervals.ci_low is null
                then 'too few replicates for a 95% interval of the sign-flip test'
        end as ci_note,
        case
            when flip_tallies.n_flips is not null
                then least(
                    1.0,
                    2 * least(
                        flip_tallies.n_unmoved + flip_tallies.n_at_or_below_0,
                        flip_tallies.n_unmoved + flip_tallies.n_at_or_above_0
                    ) / flip_tallies.n_total
                )
            when observed.sum_of_squares = 0 then 1.0
            else normal_two_sided_p(normal_limits.z)
        end as p_value,
        coalesce(normal_limits.ln_p < ln(smallest_p()), false) as p_value_is_bound,
        flip_tallies.n_flips,
        coalesce(flip_tallies.is_exact, false) as is_exact_test,
        case
            when flip_tallies.is_exact then 'exact sign flips'
            when flip_tallies.n_flips is not null then 'random sign flips'
            else 'normal limit of sign flips'
        end as test_method
    from observed
    left join flip_tallies
        on
            observed.condition_1 = flip_tallies.condition_1
            and observed.condition_2 = flip_tallies.condition_2
            and observed.metric = flip_tallies.metric
    left join flip_intervals
        on
            observed.condition_1 = flip_intervals.condition_1
            and observed.condition_2 = flip_intervals.condition_2
            and observed.metric = flip_intervals.metric
    left join normal_limits
        on
            observed.condition_1 = normal_limits.condition_1
            and observed.condition_2 = normal_limits.condition_2
            and observed.metric = normal_limits.metric
    where observed.n_pairs >= 1
)

select * from differences
