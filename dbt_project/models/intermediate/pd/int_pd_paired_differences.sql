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

tested as (
    select * from paired_sign_flip_test(paired_rows, sign_flips)
),

-- the smallest step a metric moves in, the floor of a minimum detectable difference where
-- the differences do not vary: 1 / T for a rate over T trials (the most of any replicate of
-- the pair); else the smallest gap between two distinct values the pair's replicates took;
-- else (every value the same) one whole unit, a point or a round
pair_values as (
    select
        condition_1,
        condition_2,
        metric,
        value_1 as metric_value
    from paired_replicates
    union
    select
        condition_1,
        condition_2,
        metric,
        value_2 as metric_value
    from paired_replicates
),

value_gaps as (
    select
        condition_1,
        condition_2,
        metric,
        metric_value - lag(metric_value) over (
            partition by condition_1, condition_2, metric order by metric_value
        ) as gap
    from pair_values
    where metric_value is not null
),

trial_counts as (
    select
        condition_1,
        condition_2,
        metric,
        max(n_trials) as most_trials
    from paired_replicates
    group by condition_1, condition_2, metric
),

resolutions as (
    select
        value_gaps.condition_1,
        value_gaps.condition_2,
        value_gaps.metric,
        min(value_gaps.gap) filter (where value_gaps.gap > 1e-9) as smallest_gap,
        any_value(trial_counts.most_trials) as most_trials
    from value_gaps
    left join trial_counts
        on
            value_gaps.condition_1 = trial_counts.condition_1
            and value_gaps.condition_2 = trial_counts.condition_2
            and value_gaps.metric = trial_counts.metric
    group by value_gaps.condition_1, value_gaps.condition_2, value_gaps.metric
),

differences as (
    select
        tested.*,
        case
            when resolutions.most_trials > 0 then 1.0 / resolutions.most_trials
            else coalesce(resolutions.smallest_gap, 1.0)
        end as resolution
    from tested
    left join resolutions
        on
            tested.condition_1 = resolutions.condition_1
            and tested.condition_2 = resolutions.condition_2
            and tested.metric = resolutions.metric
)

select * from differences
