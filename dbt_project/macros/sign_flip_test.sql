{#- The paired sign-flip test as one DuckDB table macro, defined when a build starts (the
    on-run-start hook define_sign_flip_test(), after define_statistics(), whose macros it
    calls); its own hook, so that each hook stays a statement a reader can follow.
    int_pd_paired_differences calls it with the run's flips, and `pdbench compare`
    (pdbench.pd.paired_query) runs these same statements for a pair the run did not compare.
    docs/pd_intervals.md says what it computes. -#}
{% macro define_sign_flip_test() -%}
-- The paired sign-flip test, one row per (condition_1, condition_2, metric) of the relation
-- named `paired` (one row per pair, replicate and metric: replicate, pair_position among the
-- pair's common replicates, n_common, difference (NULL where either side is), and
-- is_normal_limit), with the signs of the relation named `flips` (sample_size, flip, slot,
-- sign -1 or 1, is_exact). int_pd_paired_differences calls it with the run's flips and
-- `pdbench compare` (pdbench.pd.paired_query) with the exact flips of a pair the run did
-- not compare: the one definition of the test (docs/pd_intervals.md).
--
-- Flipping the signs of a subset S of the differences d moves their sum below the observed
-- one exactly when sum over S of (d - delta) >= 0, i.e. when the mean of d over S is at least
-- delta. So the one-sided p-values of "the mean difference is delta" count subset means:
-- p_greater(delta) = (u + #{subset means <= delta}) / N and p_less the same with >=, over the
-- N flips (u: flips that negate no defined difference, and, with random flips, the observed
-- sample itself counted once more: (1 + count) / (1 + B)). The p-value is
-- min(1, 2 min(p_greater(0), p_less(0))); the interval is every delta whose two-sided p is
-- above 0.05: from the (c + 1)-th smallest subset mean to the (c + 1)-th largest, with
-- c = floor(N / 40) - u (Hartigan's subset means). When c < 0 no delta can be rejected (5
-- replicates or fewer: p >= 2 / 32): NULL with the reason. Subset means are rounded to 9
-- decimals, and both the p-value and the interval read the rounded means. A pair marked
-- is_normal_limit gets the normal limit of the same test: z = |sum d| / sqrt(sum d^2),
-- p = erfc(z / sqrt(2)) in log space (never 0), and the interval of every delta with
-- |z(delta)| <= z(0.975): mean -+ z sqrt(SS / (n (n - z^2))), SS the sum of squared
-- deviations.
create or replace macro paired_sign_flip_test(paired, flips) as table
with

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
        stddev_samp(difference order by replicate) as sd_difference,
        bool_or(is_normal_limit) as is_normal_limit
    from query_table(paired)
    group by condition_1, condition_2, metric
),

-- per flip and metric, the mean of the differences it negates (the subset S)
subset_means as (
    select
        paired_rows.condition_1,
        paired_rows.condition_2,
        paired_rows.metric,
        flip_signs.flip,
        bool_and(flip_signs.is_exact) as is_exact,
        round(
            sum(paired_rows.difference) filter (where flip_signs.sign = -1)
            / nullif(count(paired_rows.difference) filter (where flip_signs.sign = -1), 0),
            9
        ) as subset_mean
    from query_table(paired) as paired_rows
    inner join query_table(flips) as flip_signs
        on
            paired_rows.n_common = flip_signs.sample_size
            and paired_rows.pair_position = flip_signs.slot
    where not paired_rows.is_normal_limit
    group by
        paired_rows.condition_1, paired_rows.condition_2, paired_rows.metric, flip_signs.flip
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

-- c, n_total // 40 - n_unmoved: how many of the smallest (and of the largest) subset means
-- lie below (above) the interval
flip_intervals as (
    select
        flip_tallies.condition_1,
        flip_tallies.condition_2,
        flip_tallies.metric,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_low
            = flip_tallies.n_total // 40 - flip_tallies.n_unmoved + 1
        ) as ci_low,
        max(ranked_means.subset_mean) filter (
            where ranked_means.rank_from_high
            = flip_tallies.n_total // 40 - flip_tallies.n_unmoved + 1
        ) as ci_high
    from flip_tallies
    inner join ranked_means
        on
            flip_tallies.condition_1 = ranked_means.condition_1
            and flip_tallies.condition_2 = ranked_means.condition_2
            and flip_tallies.metric = ranked_means.metric
    where flip_tallies.n_total // 40 - flip_tallies.n_unmoved >= 0
    group by flip_tallies.condition_1, flip_tallies.condition_2, flip_tallies.metric
),

normal_limits as (
    select
        condition_1,
        condition_2,
        metric,
        abs(sum_of_differences) / sqrt(sum_of_squares) as z,
        normal_two_sided_ln_p(abs(sum_of_differences) / sqrt(sum_of_squares)) as ln_p,
        case
            when n_pairs > z_975() ^ 2
                then z_975() * sqrt(variance / (n_pairs - z_975() ^ 2))
        end as half_width
    from per_metric
    where is_normal_limit and sum_of_squares > 0
)

select
    per_metric.condition_1,
    per_metric.condition_2,
    per_metric.metric,
    per_metric.n_pairs,
    per_metric.mean_difference,
    per_metric.sd_difference,
    case
        when per_metric.n_pairs < 2 or round(per_metric.variance, 12) = 0 then null
        when per_metric.is_normal_limit
            then interval_bound(per_metric.mean_difference - normal_limits.half_width)
        else flip_intervals.ci_low
    end as ci_low,
    case
        when per_metric.n_pairs < 2 or round(per_metric.variance, 12) = 0 then null
        when per_metric.is_normal_limit
            then interval_bound(per_metric.mean_difference + normal_limits.half_width)
        else flip_intervals.ci_high
    end as ci_high,
    case
        when per_metric.n_pairs < 2 then 'fewer than 2 paired replicates'
        when round(per_metric.variance, 12) = 0 then 'every paired difference is the same'
        when
            per_metric.is_normal_limit and normal_limits.half_width is null
            or not per_metric.is_normal_limit and flip_intervals.ci_low is null
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
        when per_metric.sum_of_squares = 0 then 1.0
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
from per_metric
left join flip_tallies
    on
        per_metric.condition_1 = flip_tallies.condition_1
        and per_metric.condition_2 = flip_tallies.condition_2
        and per_metric.metric = flip_tallies.metric
left join flip_intervals
    on
        per_metric.condition_1 = flip_intervals.condition_1
        and per_metric.condition_2 = flip_intervals.condition_2
        and per_metric.metric = flip_intervals.metric
left join normal_limits
    on
        per_metric.condition_1 = normal_limits.condition_1
        and per_metric.condition_2 = normal_limits.condition_2
        and per_metric.metric = normal_limits.metric
where per_metric.n_pairs >= 1;
{%- endmacro %}
