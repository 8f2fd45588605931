{#- Macros of the PD's intervals and tests (docs/metrics.md, "Is the difference real?"). -#}

{#- The replicate-level metrics that get a bootstrap interval in aggregates.parquet and a
    paired comparison in comparisons.parquet: every mean of the condition rows but the
    rounds (the same in every condition of a replicate, by design). -#}
{% macro pd_interval_metrics() -%}
    {{ return(pd_condition_mean_metrics() + ['nice_rate_a', 'nice_rate_b']) }}
{%- endmacro %}

{#- The replicate-level metrics whose condition means aggregates.parquet carries. -#}
{% macro pd_condition_mean_metrics() -%}
    {{ return([
        'cooperation_rate', 'cooperation_rate_a', 'cooperation_rate_b',
        'mutual_cooperation_rate', 'mutual_defection_rate',
        'retaliation_rate_a', 'retaliation_rate_b',
        'forgiveness_rate_a', 'forgiveness_rate_b',
        'total_payoff_a', 'total_payoff_b',
        'payoff_per_round_a', 'payoff_per_round_b',
        'exploitability_payoff_gap_a', 'exploitability_payoff_gap_b',
        'cooperation_rate_valid_a', 'cooperation_rate_valid_b',
        'fallback_move_share_a', 'fallback_move_share_b',
        'p_c_after_cc_a', 'p_c_after_cd_a', 'p_c_after_dc_a', 'p_c_after_dd_a',
        'p_c_after_cc_b', 'p_c_after_cd_b', 'p_c_after_dc_b', 'p_c_after_dd_b',
        'first_defection_round_a', 'first_defection_round_b',
        'time_to_collapse',
    ]) }}
{%- endmacro %}

{#- CTEs `seed_halves`, `seed_low_mixed` and `seed_key` (one row: bootstrap_n, seed_key): the
    manifest's 63-bit bootstrap_seed folded into one 32-bit key for stream `stream` (1: the
    bootstrap draws, 2: the random sign flips). `manifest` names a CTE over
    stg_pd_run_manifest. -#}
{% macro pd_seed_key(manifest, stream) -%}
    seed_halves as (
        select
            bootstrap_n,
            ((bootstrap_seed % 4294967296) + 4294967296) % 4294967296 as seed_low,
            (((bootstrap_seed // 4294967296) % 4294967296) + 4294967296) % 4294967296
                as seed_high
        from {{ manifest }}
    ),

    seed_low_mixed as (
        select
            bootstrap_n,
            seed_high,
            {{ mix32('xor(seed_low, ' ~ stream ~ ')') }} as low_key
        from seed_halves
    ),

    seed_key as (
        select
            bootstrap_n,
            {{ mix32('xor(low_key, seed_high::ubigint)') }} as seed_key
        from seed_low_mixed
    )
{%- endmacro %}

{#- The most replicates one bootstrap resample draws, and the most pairs a sign-flip test
    flips (dbt var pd_bootstrap_max_draws, default 200). A larger sample is resampled m out
    of n (m = this cap) with the spread rescaled by sqrt(m / n), and tested with the normal
    limit of the sign-flip distribution, so that the cost stays bootstrap_n x 200 rows per
    condition or pair however many replicates a run has (docs/metrics.md). -#}
{% macro pd_max_draws() -%}
    {{ return(var('pd_bootstrap_max_draws', 200)) }}
{%- endmacro %}

{#- Two-sided p-value of a standard normal statistic z >= 0: erfc(z / sqrt(2)) by the
    Chebyshev fit of Numerical Recipes' erfcc (fractional error below 1.2e-7). -#}
{% macro pd_normal_two_sided_p(z) -%}
    {%- set x = "((" ~ z ~ ") / sqrt(2.0))" -%}
    {%- set t = "(1.0 / (1.0 + 0.5 * " ~ x ~ "))" -%}
    {{ t }} * exp(
        -{{ x }} * {{ x }} - 1.26551223 + {{ t }} * (1.00002368 + {{ t }} * (0.37409196
        + {{ t }} * (0.09678418 + {{ t }} * (-0.18628806 + {{ t }} * (0.27886807
        + {{ t }} * (-1.13520398 + {{ t }} * (1.48851587 + {{ t }} * (-0.82215223
        + {{ t }} * 0.17087277))))))))
    )
{%- endmacro %}
