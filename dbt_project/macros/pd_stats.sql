{#- Macros of the PD's intervals and tests (docs/metrics.md, "Is the difference real?"). -#}

{#- The most replicates a sign-flip test flips (dbt var pd_bootstrap_max_draws, default 200):
    a pair of more common replicates is tested with the normal limit of the sign-flip
    distribution, so that the cost stays bounded however many replicates a run has
    (docs/metrics.md). -#}
{% macro pd_max_draws() -%}
    {{ return(var('pd_bootstrap_max_draws', 200)) }}
{%- endmacro %}

{#- The most common replicates whose 2^n sign flips are all enumerated (dbt var
    pd_exact_flip_max, default 12: 4,096 flips); beyond, random flips. -#}
{% macro pd_exact_flip_max() -%}
    {{ return(var('pd_exact_flip_max', 12)) }}
{%- endmacro %}

{#- Random sign flips per test of the run (dbt var pd_sign_flips_per_test, default 400 =
    20 / 0.05): a test of random flips gets B = max(bootstrap_n, 400 x m) flips, m the
    number of tests (compared pairs x metrics), so that its smallest p, 1 / (B + 1), times m
    stays 20 times below 0.05 and never keeps a clear difference from passing
    Benjamini-Hochberg. At most pd_sign_flips_max (default 20,000) flips: the test joins
    pairs x B x n rows, so past 50 tests the margin shrinks (the floor after adjustment,
    m / 20,001, still passes 0.05 up to 1,000 tests). -#}
{#- Whether a compared pair is tested with the normal limit of the sign-flip distribution
    rather than with flips: past pd_max_draws() common replicates, and past
    pd_exact_flip_max() when the run holds more tests than random flips can serve (more than
    0.05 x pd_sign_flips_max, 1,000 by default). There the smallest random p, 1 / (B + 1),
    times the number of tests exceeds 0.05, so no isolated difference could pass
    Benjamini-Hochberg however clear, while the flips would cost pairs x B x n rows (a run
    of 33 conditions of 100 replicates: 528 pairs x 20,000 x 100). -#}
{% macro pd_uses_normal_limit(n_common, n_tests) -%}
    (
        {{ n_common }} > {{ pd_max_draws() }}
        or {{ n_common }} > {{ pd_exact_flip_max() }}
        and {{ n_tests }} > 0.05 * {{ var('pd_sign_flips_max', 20000) }}
    )
{%- endmacro %}

{#- The run's number of tests, the m of Benjamini-Hochberg, as the one-row CTE `test_count`
    (column n_tests): every pair of conditions compared in `paired_replicates` times every
    metric it compares (each metric with an interval in the catalogue). -#}
{% macro pd_test_count_ctes(paired_replicates) -%}
    compared_tests as (
        select distinct
            condition_1,
            condition_2,
            metric
        from {{ paired_replicates }}
    ),

    test_count as (
        select count(*) as n_tests
        from compared_tests
    )
{%- endmacro %}

{% macro pd_random_flip_count(bootstrap_n, n_tests) -%}
    least(
        greatest({{ bootstrap_n }}, {{ var('pd_sign_flips_per_test', 400) }} * {{ n_tests }}),
        {{ var('pd_sign_flips_max', 20000) }}
    )::bigint
{%- endmacro %}

{#- Below this many paired replicates a comparison is flagged `is_few_data`: with fewer, a
    sign-flip test reaches p <= 0.05 only for differences of one sign in (nearly) every
    replicate, and a difference that passes is still a rough size (docs/metrics.md). -#}
{% macro pd_few_data_replicates() -%}
    {{ return(var('pd_few_data_replicates', 10)) }}
{%- endmacro %}

{#- The fewest paired replicates whose sign-flip test can reach p <= 0.05: with n, the best
    two-sided p is 2 / 2^n, 0.0625 at 5 and 0.03125 at 6. -#}
{% macro pd_fewest_replicates_for_interval() -%}
    6
{%- endmacro %}
