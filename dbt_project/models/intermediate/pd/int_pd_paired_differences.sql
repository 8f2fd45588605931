-- For every compared pair of conditions and every metric defined in at least one common
-- replicate: the mean paired difference (condition_1 minus condition_2), its 95% paired
-- bootstrap interval (the pair's common replicates resampled jointly: one draw takes both
-- conditions' values of a replicate; NULL with fewer than two pairs), and a two-sided
-- sign-flip p-value: the share of sign flips whose mean difference is at least as far from 0
-- as the observed one (exact over all flips; with random flips (1 + count) / (1 + flips)).
-- Resample means are rounded to 9 decimals, as in int_pd_condition_intervals. A pair of more
-- than pd_max_draws() common replicates is resampled m out of n (its quantiles moved towards
-- the mean by sqrt(m / n)) and tested with the normal limit of the sign-flip distribution:
-- z = |sum of d| / sqrt(sum of d^2), p = erfc(z / sqrt(2)).

{%- set metrics = pd_interval_metrics() %}

with

paired_replicates as (
    select * from {{ ref('int_pd_paired_replicates') }}
),

draws as (
    select * from {{ ref('int_pd_bootstrap_draws') }}
),

sign_flips as (
    select * from {{ ref('int_pd_sign_flips') }}
),

pair_means as (
    select
        condition_1,
        condition_2,
        {% for column in metrics %}
        avg({{ column }} order by replicate) as {{ column }},
        {% endfor %}
        count(*) as n_common
    from paired_replicates
    group by condition_1, condition_2
),

-- the deviations of the differences from their mean, resampled (as int_pd_condition_intervals)
deviations as (
    select
        paired_replicates.condition_1,
        paired_replicates.condition_2,
        paired_replicates.n_common,
        {% for column in metrics %}
        paired_replicates.{{ column }} - pair_means.{{ column }} as {{ column }},
        {% endfor %}
        paired_replicates.pair_position
    from paired_replicates
    inner join pair_means
        on
            paired_replicates.condition_1 = pair_means.condition_1
            and paired_replicates.condition_2 = pair_means.condition_2
),

resample_means as (
    select
        deviations.condition_1,
        deviations.condition_2,
        draws.resample,
        {% for column in metrics %}
        {{ comparable('avg(deviations.' ~ column ~ ')') }} as {{ column }},
        {% endfor %}
        count(*) as n_draws
    from deviations
    inner join draws
        on
            deviations.n_common = draws.sample_size
            and deviations.pair_position = draws.draw_position
    group by deviations.condition_1, deviations.condition_2, draws.resample
),

flipped_means as (
    select
        paired_replicates.condition_1,
        paired_replicates.condition_2,
        sign_flips.flip,
        {% for column in metrics %}
        avg(sign_flips.sign * paired_replicates.{{ column }}) as {{ column }},
        {% endfor %}
        bool_and(sign_flips.is_exact) as is_exact
    from paired_replicates
    inner join sign_flips
        on
            paired_replicates.n_common = sign_flips.sample_size
            and paired_replicates.pair_position = sign_flips.slot
    group by paired_replicates.condition_1, paired_replicates.condition_2, sign_flips.flip
),

observed as (
    {% for column in metrics %}
    select
        condition_1,
        condition_2,
        '{{ column }}' as metric,
        count({{ column }}) as n_pairs,
        avg({{ column }} order by replicate) as mean_difference,
        sum({{ column }} * {{ column }} order by replicate) as sum_of_squares,
        max(n_common) as n_common
    from paired_replicates
    group by condition_1, condition_2
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

bootstrap_intervals as (
    {% for column in metrics %}
    select
        condition_1,
        condition_2,
        '{{ column }}' as metric,
        quantile_cont({{ column }}, 0.025) as ci_low,
        quantile_cont({{ column }}, 0.975) as ci_high
    from resample_means
    group by condition_1, condition_2
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

flip_statistics as (
    {% for column in metrics %}
    select
        condition_1,
        condition_2,
        flip,
        is_exact,
        '{{ column }}' as metric,
        {{ column }} as flipped_mean
    from flipped_means
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

-- A relative 1e-9 absorbs floating-point noise (a flipped mean is summed in any order), so
-- that a flip giving the observed |mean| (the identity, all signs flipped) counts
exceedances as (
    select
        observed.condition_1,
        observed.condition_2,
        observed.metric,
        bool_and(flip_statistics.is_exact) as is_exact,
        count(*) as n_flips,
        count(*) filter (
            where
            abs(flip_statistics.flipped_mean)
            >= abs(observed.mean_difference)
            - 1e-9 * greatest(1.0, abs(observed.mean_difference))
        ) as n_as_extreme
    from observed
    inner join flip_statistics
        on
            observed.condition_1 = flip_statistics.condition_1
            and observed.condition_2 = flip_statistics.condition_2
            and observed.metric = flip_statistics.metric
    group by observed.condition_1, observed.condition_2, observed.metric
),

differences as (
    select
        observed.condition_1,
        observed.condition_2,
        observed.metric,
        observed.n_pairs,
        observed.mean_difference,
        case
            when observed.n_pairs >= 2
                then
                    observed.mean_difference
                    + sqrt(least(observed.n_common, {{ pd_max_draws() }}) / observed.n_common)
                    * bootstrap_intervals.ci_low
        end as ci_low,
        case
            when observed.n_pairs >= 2
                then
                    observed.mean_difference
                    + sqrt(least(observed.n_common, {{ pd_max_draws() }}) / observed.n_common)
                    * bootstrap_intervals.ci_high
        end as ci_high,
        case
            when exceedances.is_exact then exceedances.n_as_extreme / exceedances.n_flips
            when exceedances.n_flips is not null
                then (1 + exceedances.n_as_extreme) / (1 + exceedances.n_flips)
            when observed.sum_of_squares = 0 then 1.0
            else least(1.0, {{ pd_normal_two_sided_p(
                'abs(observed.mean_difference) * observed.n_pairs'
                ~ ' / sqrt(observed.sum_of_squares)'
            ) }})
        end as p_value,
        exceedances.n_flips,
        coalesce(exceedances.is_exact, false) as is_exact_test
    from observed
    left join bootstrap_intervals
        on
            observed.condition_1 = bootstrap_intervals.condition_1
            and observed.condition_2 = bootstrap_intervals.condition_2
            and observed.metric = bootstrap_intervals.metric
    left join exceedances
        on
            observed.condition_1 = exceedances.condition_1
            and observed.condition_2 = exceedances.condition_2
            and observed.metric = exceedances.metric
    where observed.n_pairs >= 1
)

select * from differences
