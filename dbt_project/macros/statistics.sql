{#- The statistics the models call, as DuckDB macros: plain SQL functions that a compiled
    statement calls by name, defined once when a build starts (the on-run-start hook
    define_statistics(); `pdbench aggregate` runs the same statements). docs/pd_intervals.md
    says which interval each metric gets and why. -#}
{% macro define_statistics() -%}
-- z(0.975), the two-sided 95% normal quantile
create or replace macro z_975() as 1.959963984540054;

-- an interval bound as it is written: rounded to 9 decimals (floating-point residue such as
-- -4.4e-10 becomes 0) and -0.0 made 0
create or replace macro interval_bound(x) as round(x, 9) + 0.0;

-- t(0.975, df), Student's two-sided 95% quantile: the table's value, to 3 decimals, for df
-- 1..30; past 30 the Cornish-Fisher expansion z + g1 / df + g2 / df^2 + g3 / df^3 + g4 / df^4
-- around z = z(0.975) (Abramowitz and Stegun 26.7.5; g1 = (z^3 + z) / 4, g2 = (5 z^5 +
-- 16 z^3 + 3 z) / 96, g3 = (3 z^7 + 19 z^5 + 17 z^3 - 15 z) / 384, g4 = (79 z^9 + 776 z^7 +
-- 1482 z^5 - 1920 z^3 - 945 z) / 92160), within 4e-8 of the exact quantile for every
-- df > 30; NULL for df < 1
create or replace macro t_quantile_975(df) as
    case
        when df >= 1 and df <= 30 then [
            12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
            2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
            2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042
        ][df::integer]
        when df > 30
            then 1.959963984540054 + 2.372271230298562 / (df) + 2.8224986157396112 / (df) ^ 2
            + 2.555849679507722 / (df) ^ 3 + 1.5895340533938225 / (df) ^ 4
    end;

-- one end of the 95% Wilson score interval of a share p of n trials (n a real number: an
-- effective count), (p + z^2 / 2n -+ z sqrt(p (1 - p) / n + z^2 / 4n^2)) / (1 + z^2 / n):
-- exactly 0 at p = 0 and 1 at p = 1; NULL when n is NULL or not positive
create or replace macro wilson_share_low(p, n) as
    case
        when n is null or n <= 0 or p is null then null
        when p = 0 then 0.0
        else interval_bound(
            (p::double + 1.959963984540054 ^ 2 / (2 * n::double)
            - 1.959963984540054 * sqrt(
                p::double * (1 - p::double) / n::double
                + 1.959963984540054 ^ 2 / (4 * n::double ^ 2)
            )) / (1 + 1.959963984540054 ^ 2 / n::double)
        )
    end;

create or replace macro wilson_share_high(p, n) as
    case
        when n is null or n <= 0 or p is null then null
        when p = 1 then 1.0
        else interval_bound(
            (p::double + 1.959963984540054 ^ 2 / (2 * n::double)
            + 1.959963984540054 * sqrt(
                p::double * (1 - p::double) / n::double
                + 1.959963984540054 ^ 2 / (4 * n::double ^ 2)
            )) / (1 + 1.959963984540054 ^ 2 / n::double)
        )
    end;

-- one end of the 95% Wilson score interval of k successes in n trials, (k + z^2/2 -+
-- z sqrt(k (n - k) / n + z^2 / 4)) / (n + z^2): exactly 0 at k = 0 and 1 at k = n; NULL when
-- n is 0
create or replace macro wilson_count_low(k, n) as
    case
        when n > 0 and k = 0 then 0.0
        when n > 0
            then interval_bound(
                (k::double + 1.959963984540054 ^ 2 / 2
                - 1.959963984540054 * sqrt(
                    k::double * (n::double - k::double) / n::double
                    + 1.959963984540054 ^ 2 / 4
                )) / (n::double + 1.959963984540054 ^ 2)
            )
    end;

create or replace macro wilson_count_high(k, n) as
    case
        when n > 0 and k = n then 1.0
        when n > 0
            then interval_bound(
                (k::double + 1.959963984540054 ^ 2 / 2
                + 1.959963984540054 * sqrt(
                    k::double * (n::double - k::double) / n::double
                    + 1.959963984540054 ^ 2 / 4
                )) / (n::double + 1.959963984540054 ^ 2)
            )
    end;

-- the smallest positive normal double: a p-value whose exact value is smaller is written as
-- this bound (and flagged), never as 0
create or replace macro smallest_p() as 2.2250738585072014e-308;

-- ln of the two-sided p-value of a standard normal statistic z >= 0, ln erfc(z / sqrt(2)),
-- by the Chebyshev fit of Numerical Recipes' erfcc, erfc(x) = t exp(-x^2 + P(t)) with
-- t = 1 / (1 + x / 2), taken in log space: its fractional error (below 1.2e-7) holds however
-- far in the tail, and it never underflows
create or replace macro normal_two_sided_ln_p(z) as
    ln(1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0))))
    - ((z) / sqrt(2.0)) * ((z) / sqrt(2.0)) - 1.26551223
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (1.00002368
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (0.37409196
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (0.09678418
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (-0.18628806
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (0.27886807
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (-1.13520398
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (1.48851587
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * (-0.82215223
    + (1.0 / (1.0 + 0.5 * ((z) / sqrt(2.0)))) * 0.17087277))))))));

-- the two-sided p-value of a standard normal statistic z >= 0, never 0: exp of the ln
-- above, and smallest_p() where that is smaller; NULL when z is NULL (greatest() would
-- skip a NULL argument and make a missing statistic the smallest p)
create or replace macro normal_two_sided_p(z) as
    case
        when (z) is not null
            then least(1.0, greatest(exp(normal_two_sided_ln_p(z)), smallest_p()))
    end;

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
