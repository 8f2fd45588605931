{#- Macros of the PD's intervals and tests (docs/metrics.md, "Is the difference real?"). -#}

{#- The replicate-level metrics that get an interval in aggregates.parquet and a paired
    comparison in comparisons.parquet: every metric of the catalogue (macros/
    pd_metric_catalogue.sql) with an interval, in its order. -#}
{% macro pd_interval_metrics() -%}
    {{ return(pd_metrics_where('interval', ['t', 'wilson'])) }}
{%- endmacro %}

{#- The replicate-level metrics whose condition means (or pooled shares) aggregates.parquet
    carries with an interval. -#}
{% macro pd_condition_mean_metrics() -%}
    {{ return(
        pd_metrics_where('condition', ['mean', 'pooled'])
        | select('in', pd_interval_metrics()) | list
    ) }}
{%- endmacro %}

{#- The condition means without an interval (how far the moves came from valid replies), and
    the counts summed over the replicates. -#}
{% macro pd_condition_mean_metrics_without_interval() -%}
    {{ return(
        pd_metrics_where('condition', ['mean'])
        | reject('in', pd_interval_metrics()) | list
    ) }}
{%- endmacro %}

{% macro pd_condition_sum_metrics() -%}
    {{ return(pd_metrics_where('condition', ['sum'])) }}
{%- endmacro %}


{#- The memory-one metrics: each replicate's value is a share of C over its visits of one
    previous round, so the condition gets the pooled share (every visit weighs the same) and a
    Wilson score interval on the pooled counts (n_c_after_* of n_after_*), not a t interval
    over replicate means (docs/pd_intervals.md, "Which interval, which p-value"). -#}
{% macro pd_memory_one_metrics() -%}
    {{ return(pd_metrics_where('interval', ['wilson'])) }}
{%- endmacro %}

{#- The metrics that are shares in [0, 1] with a t interval: their intervals are clipped to it
    (with a note). -#}
{% macro pd_rate_metrics() -%}
    {{ return(pd_metrics_where('is_rate', [true]) | select('in', pd_metrics_where('interval', ['t'])) | list) }}
{%- endmacro %}

{#- The rates of pd_rate_metrics() that count events over a known number of trials in each
    replicate: column -> the replicate's trial count, the catalogue's `trials` expression over
    int_pd_match_metrics (macros/pd_metric_catalogue.sql).
    Their condition interval is the wider of the t interval and the binomial floor, a Wilson
    interval on the trials pooled over the replicates (int_pd_condition_intervals,
    docs/metrics.md). Both agents' cooperation counts both agents' moves; retaliation and
    forgiveness count the rounds after an opponent's defection (the visits of CD and DD);
    cooperation among valid moves, the valid moves; niceness is one trial per replicate. -#}
{% macro pd_rate_trials() -%}
    {%- set catalogue = pd_metric_catalogue() -%}
    {%- set trials = {} -%}
    {%- for entry in catalogue if 'trials' in entry and not entry['per_agent'] -%}
        {%- do trials.update({entry['name']: entry['trials'] | string}) -%}
    {%- endfor -%}
    {%- for side in ['a', 'b'] -%}
        {%- for entry in catalogue if 'trials' in entry and entry['per_agent'] -%}
            {%- do trials.update({
                entry['name'] ~ '_' ~ side: (entry['trials'] | string).replace('<side>', side)
            }) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(trials) }}
{%- endmacro %}

{#- One end (`side`: 'low' or 'high') of the 95% Wilson score interval of a share `share` of
    `trials` trials (a real number: an effective count), (p + z^2 / 2n -+ z sqrt(p (1 - p) / n
    + z^2 / 4n^2)) / (1 + z^2 / n): exactly 0 at p = 0 and 1 at p = 1, rounded by
    pd_bound(); NULL when trials is NULL or not positive. -#}
{% macro pd_wilson_share_bound(share, trials, side) -%}
    {%- set z = pd_z_975() -%}
    {%- set p = '(' ~ share ~ ')::double' -%}
    {%- set n = '(' ~ trials ~ ')::double' -%}
    {%- set sign = '-' if side == 'low' else '+' -%}
    {%- set edge = '0.0' if side == 'low' else '1.0' -%}
    {%- set edge_share = '0' if side == 'low' else '1' -%}
    case
        when {{ n }} is null or {{ n }} <= 0 or {{ p }} is null then null
        when {{ p }} = {{ edge_share }} then {{ edge }}
        else {{ pd_bound('(' ~ p ~ ' + ' ~ z ~ ' ^ 2 / (2 * ' ~ n ~ ') ' ~ sign ~ ' ' ~ z
            ~ ' * sqrt(' ~ p ~ ' * (1 - ' ~ p ~ ') / ' ~ n ~ ' + ' ~ z ~ ' ^ 2 / (4 * ' ~ n
            ~ ' ^ 2))) / (1 + ' ~ z ~ ' ^ 2 / ' ~ n ~ ')') }}
    end
{%- endmacro %}

{#- The two-sided 95% normal quantile, z(0.975). -#}
{% macro pd_z_975() -%}
    1.959963984540054
{%- endmacro %}

{#- An interval bound as it is written: rounded to 9 decimals (floating-point residue such as
    -4.4e-10 becomes 0) and -0.0 made 0. -#}
{% macro pd_bound(expression) -%}
    (round({{ expression }}, 9) + 0.0)
{%- endmacro %}

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
    metric of pd_interval_metrics(). -#}
{% macro pd_test_count_ctes(paired_replicates) -%}
    compared_pairs as (
        select distinct
            condition_1,
            condition_2
        from {{ paired_replicates }}
    ),

    test_count as (
        select count(*) * {{ pd_interval_metrics() | length }} as n_tests
        from compared_pairs
    )
{%- endmacro %}

{% macro pd_random_flip_count(bootstrap_n, n_tests) -%}
    least(
        greatest({{ bootstrap_n }}, {{ var('pd_sign_flips_per_test', 400) }} * {{ n_tests }}),
        {{ var('pd_sign_flips_max', 20000) }}
    )::bigint
{%- endmacro %}

{#- The smallest positive normal double: a p-value whose exact value is smaller is written as
    this bound (and flagged), never as 0. -#}
{% macro pd_smallest_p() -%}
    2.2250738585072014e-308
{%- endmacro %}

{#- ln of the two-sided p-value of a standard normal statistic z >= 0, ln erfc(z / sqrt(2)),
    by the Chebyshev fit of Numerical Recipes' erfcc, erfc(x) = t exp(-x^2 + P(t)), taken in
    log space: its fractional error (below 1.2e-7) holds however far in the tail, and it
    never underflows. -#}
{% macro pd_normal_two_sided_ln_p(z) -%}
    {%- set x = "((" ~ z ~ ") / sqrt(2.0))" -%}
    {%- set t = "(1.0 / (1.0 + 0.5 * " ~ x ~ "))" -%}
    ln({{ t }})
    - {{ x }} * {{ x }} - 1.26551223 + {{ t }} * (1.00002368 + {{ t }} * (0.37409196
        + {{ t }} * (0.09678418 + {{ t }} * (-0.18628806 + {{ t }} * (0.27886807
        + {{ t }} * (-1.13520398 + {{ t }} * (1.48851587 + {{ t }} * (-0.82215223
        + {{ t }} * 0.17087277))))))))
{%- endmacro %}

{#- The two-sided p-value of a standard normal statistic z >= 0, never 0: exp of the ln above,
    and pd_smallest_p() where that is smaller (p_value_is_bound says so). NULL when z is NULL:
    DuckDB's greatest() skips a NULL argument, so unguarded a missing statistic would become
    the smallest p, a certain difference. -#}
{% macro pd_normal_two_sided_p(z) -%}
    case
        when ({{ z }}) is not null
            then least(
                1.0, greatest(exp({{ pd_normal_two_sided_ln_p(z) }}), {{ pd_smallest_p() }})
            )
    end
{%- endmacro %}

{#- Three columns <name>_ci_low, <name>_ci_high, <name>_ci_note: the 95% Wilson score interval
    of a share of `successes` in `trials` (z = z(0.975)): (k + z^2/2 -+ z sqrt(k (n - k) / n
    + z^2 / 4)) / (n + z^2), exactly 0 at k = 0 and 1 at k = n; NULL with a note when
    trials = 0. -#}
{% macro pd_wilson_interval(successes, trials, name) -%}
    {%- set z = pd_z_975() -%}
    {%- set k = successes ~ '::double' -%}
    {%- set n = trials ~ '::double' -%}
    {%- set half = z ~ ' * sqrt(' ~ k ~ ' * (' ~ n ~ ' - ' ~ k ~ ') / ' ~ n
        ~ ' + ' ~ z ~ ' ^ 2 / 4)' -%}
    case
        when {{ trials }} > 0 and {{ successes }} = 0 then 0.0
        when {{ trials }} > 0
            then {{ pd_bound('(' ~ k ~ ' + ' ~ z ~ ' ^ 2 / 2 - ' ~ half ~ ') / (' ~ n ~ ' + '
                ~ z ~ ' ^ 2)') }}
    end as {{ name }}_ci_low,
    case
        when {{ trials }} > 0 and {{ successes }} = {{ trials }} then 1.0
        when {{ trials }} > 0
            then {{ pd_bound('(' ~ k ~ ' + ' ~ z ~ ' ^ 2 / 2 + ' ~ half ~ ') / (' ~ n ~ ' + '
                ~ z ~ ' ^ 2)') }}
    end as {{ name }}_ci_high,
    case
        when coalesce({{ trials }}, 0) = 0 then 'the previous round never occurred'
    end as {{ name }}_ci_note
{%- endmacro %}

{#- Below this many paired replicates a comparison is flagged `is_few_data`: with fewer, a
    sign-flip test reaches p <= 0.05 only for differences of one sign in (nearly) every
    replicate, and a difference that passes is still a rough size (docs/metrics.md). -#}
{% macro pd_few_data_replicates() -%}
    {{ return(var('pd_few_data_replicates', 10)) }}
{%- endmacro %}
