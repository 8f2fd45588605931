{#- For every compared pair of conditions and every metric defined in at least one common
    replicate: the mean paired difference (condition_1 minus condition_2), a two-sided
    sign-flip p-value and the 95% interval that inverts the same test, so that the interval
    excludes 0 exactly when p <= 0.05 (docs/pd_intervals.md, "Which interval, which p-value").
    The test is the DuckDB macro paired_sign_flip_test (macros/sign_flip_test.sql), which
    `pdbench compare` also runs on a pair the run did not compare. A pair of more than
    pd_max_draws() common replicates gets the normal limit of the same test, and so does a
    pair of more than pd_exact_flip_max() common replicates in a run of more tests than random
    flips can serve (pd_uses_normal_limit). -#}

with

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

-- read by name in paired_sign_flip_test, as is paired_rows
sign_flips as (  -- noqa: ST03
    select * from {{ ref('int_pd_sign_flips') }}
),

{{ pd_test_count_ctes('paired_replicates') }},

paired_rows as (  -- noqa: ST03
    select
        paired_replicates.condition_1,
        paired_replicates.condition_2,
        paired_replicates.metric,
        paired_replicates.replicate,
        paired_replicates.pair_position,
        paired_replicates.n_common,
        paired_replicates.difference,
        {{ pd_uses_normal_limit('paired_replicates.n_common', 'test_count.n_tests') }}
            as is_normal_limit
    from paired_replicates
    cross join test_count
),

differences as (
    select * from paired_sign_flip_test(paired_rows, sign_flips)
)

select * from differences
