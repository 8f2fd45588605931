-- 95% percentile bootstrap intervals of every condition mean: each resample draws the
-- condition's ok replicates with replacement (int_pd_bootstrap_draws), takes the mean of each
-- metric over the drawn replicates where it is defined, and the interval is the 2.5% and
-- 97.5% quantiles of those means (linear interpolation between order statistics). NULL when
-- fewer than two replicates define the metric: one value has no spread to resample. The
-- resamples average the deviations from the condition mean, rounded to 9 decimals
-- (comparable(), macros/compare.sql): a sum is taken in whatever order the rows reach the
-- aggregate, and rounding keeps the quantiles the same on every build (sorting each of the
-- B x n draws instead costs far more); the interval is the mean plus their quantiles, so it
-- holds the mean exactly (a deviation of 0 stays 0). A condition of
-- more than pd_max_draws() replicates is resampled m out of n (m = the cap): its quantiles
-- are moved towards the mean by sqrt(m / n), the spread of a mean of n.

{%- set metrics = pd_interval_metrics() %}

with

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

draws as (
    select * from {{ ref('int_pd_bootstrap_draws') }}
),

defined_counts as (
    select
        condition,
        {% for column in metrics %}
        count({{ column }}) as n_{{ column }},
        avg({{ column }} order by replicate) as mean_{{ column }},
        {% endfor %}
        count(*) as n_replicates,
        sqrt(least(count(*), {{ pd_max_draws() }}) / count(*)) as spread_scale
    from replicate_metrics
    group by condition
),

deviations as (
    select
        replicate_metrics.condition,
        replicate_metrics.n_replicates,
        {% for column in metrics %}
        replicate_metrics.{{ column }} - defined_counts.mean_{{ column }} as {{ column }},
        {% endfor %}
        replicate_metrics.replicate_position
    from replicate_metrics
    inner join defined_counts
        on replicate_metrics.condition = defined_counts.condition
),

resample_means as (
    select
        deviations.condition,
        draws.resample,
        {% for column in metrics %}
        {{ comparable('avg(deviations.' ~ column ~ ')') }} as {{ column }},
        {% endfor %}
        count(*) as n_draws
    from deviations
    inner join draws
        on
            deviations.n_replicates = draws.sample_size
            and deviations.replicate_position = draws.draw_position
    group by deviations.condition, draws.resample
),

quantiles as (
    select
        condition,
        {% for column in metrics %}
        quantile_cont({{ column }}, 0.025) as {{ column }}_low,
        quantile_cont({{ column }}, 0.975) as {{ column }}_high,
        {% endfor %}
        count(*) as n_resamples
    from resample_means
    group by condition
),

intervals as (
    select
        defined_counts.condition,
        {% for column in metrics %}
        case
            when defined_counts.n_{{ column }} >= 2
                then
                    defined_counts.mean_{{ column }}
                    + defined_counts.spread_scale * quantiles.{{ column }}_low
        end as {{ column }}_ci_low,
        case
            when defined_counts.n_{{ column }} >= 2
                then
                    defined_counts.mean_{{ column }}
                    + defined_counts.spread_scale * quantiles.{{ column }}_high
        end as {{ column }}_ci_high,
        {% endfor %}
        quantiles.n_resamples
    from defined_counts
    left join quantiles
        on defined_counts.condition = quantiles.condition
)

select * from intervals
