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

-- t(0.80, df), Student's one-sided 80% quantile (the power term of a minimum detectable
-- difference): the table's value, to 3 decimals, for df 1..30; past 30 the same
-- Cornish-Fisher expansion around z = z(0.80) = 0.8416212335729143, within 2e-9 of the exact
-- quantile for every df > 30; NULL for df < 1
create or replace macro t_quantile_80(df) as
    case
        when df >= 1 and df <= 30 then [
            1.376, 1.061, 0.978, 0.941, 0.920, 0.906, 0.896, 0.889, 0.883, 0.879,
            0.876, 0.873, 0.870, 0.868, 0.866, 0.865, 0.863, 0.862, 0.861, 0.860,
            0.859, 0.858, 0.858, 0.857, 0.856, 0.856, 0.855, 0.855, 0.854, 0.854
        ][df::integer]
        when df > 30
            then 0.8416212335729143 + 0.35944092215625445 / (df) + 0.1476506237629083 / (df) ^ 2
            + 0.016745854751890346 / (df) ^ 3 - 0.011559163026144157 / (df) ^ 4
    end;

-- The minimum detectable difference of a paired test of n differences with sample sd s: the
-- smallest true mean difference it finds with 80% power at a two-sided 5% level,
-- (t(0.975, n - 1) + t(0.80, n - 1)) s / sqrt(n). Where s is 0 (every difference the same,
-- as deterministic agents give) the formula says 0, which no run can detect: the floor is
-- then `resolution`, the smallest step the metric moves in, a difference that agents without
-- variation would show in every replicate (docs/pd_intervals.md). NULL below 2 differences.
create or replace macro minimum_detectable_difference(n, s, resolution) as
    case
        when n >= 2 and round(coalesce(s, 0.0), 12) = 0 then resolution
        when n >= 2 then (t_quantile_975(n - 1) + t_quantile_80(n - 1)) * s / sqrt(n)
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
{%- endmacro %}
