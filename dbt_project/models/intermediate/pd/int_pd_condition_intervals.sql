-- 95% intervals of every condition mean (docs/metrics.md, "Which interval, which p-value").
-- A mean over replicates (rates, payoffs, rounds): Student's t interval, mean -+ t(0.975,
-- n - 1) x sd / sqrt(n) over the n replicates that define the metric; a share's interval is
-- clipped to [0, 1], and its note says so. A memory-one share (P(C | the previous round)):
-- the Wilson score interval on the pooled counts, c cooperations of v visits over the
-- condition's replicates. NULL, with the reason in <metric>_ci_note, when fewer than two
-- replicates define a t interval's metric, when they all gave the same value (a random
-- quantity never gets a zero-width interval) or when the state was never visited. Bounds are
-- rounded to 9 decimals (pd_bound): floating-point residue never leaves a bound a hair
-- outside the range or off the edge.

{%- set memory_one = pd_memory_one_metrics() %}
{%- set rates = pd_rate_metrics() %}
{%- set means = pd_interval_metrics() | reject('in', memory_one) | list %}

with

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

condition_moments as (
    select
        condition,
        {% for column in means %}
        count({{ column }}) as n_{{ column }},
        avg({{ column }} order by replicate) as mean_{{ column }},
        stddev_samp({{ column }} order by replicate) as sd_{{ column }},
        {% endfor %}
        {% for column in memory_one %}
        sum(n_{{ column[4:] }}) as n_{{ column[4:] }},
        sum(n_c_{{ column[4:] }}) as n_c_{{ column[4:] }},
        {% endfor %}
        count(*) as n_replicates
    from replicate_metrics
    group by condition
),

t_bounds as (
    select
        condition,
        {% for column in means %}
        case
            when n_{{ column }} >= 2 and round(sd_{{ column }}, 12) > 0
                then
                    mean_{{ column }} - {{ t_quantile_975('n_' ~ column ~ ' - 1') }}
                    * sd_{{ column }} / sqrt(n_{{ column }})
        end as {{ column }}_raw_low,
        case
            when n_{{ column }} >= 2 and round(sd_{{ column }}, 12) > 0
                then
                    mean_{{ column }} + {{ t_quantile_975('n_' ~ column ~ ' - 1') }}
                    * sd_{{ column }} / sqrt(n_{{ column }})
        end as {{ column }}_raw_high,
        case
            when n_{{ column }} < 2 then 'fewer than 2 replicates define it'
            when round(sd_{{ column }}, 12) = 0 then 'every replicate gave the same value'
        end as {{ column }}_null_reason,
        {% endfor %}
        {% for column in memory_one %}
        n_{{ column[4:] }},
        n_c_{{ column[4:] }},
        {% endfor %}
        n_replicates
    from condition_moments
),

intervals as (
    select
        condition,
        {% for column in means %}
        {% if column in rates %}
        -- greatest() and least() skip a NULL argument: clip only a bound that exists
        case
            when {{ column }}_raw_low is not null
                then greatest(0.0, {{ pd_bound(column ~ '_raw_low') }})
        end as {{ column }}_ci_low,
        case
            when {{ column }}_raw_high is not null
                then least(1.0, {{ pd_bound(column ~ '_raw_high') }})
        end as {{ column }}_ci_high,
        coalesce(
            {{ column }}_null_reason,
            case
                when
                    {{ pd_bound(column ~ '_raw_low') }} < 0
                    or {{ pd_bound(column ~ '_raw_high') }} > 1
                    then 'clipped to [0, 1]'
            end
        ) as {{ column }}_ci_note,
        {% else %}
        {{ pd_bound(column ~ '_raw_low') }} as {{ column }}_ci_low,
        {{ pd_bound(column ~ '_raw_high') }} as {{ column }}_ci_high,
        {{ column }}_null_reason as {{ column }}_ci_note,
        {% endif %}
        {% endfor %}
        {% for column in memory_one %}
        {{ pd_wilson_interval('n_c_' ~ column[4:], 'n_' ~ column[4:], column) }},
        {% endfor %}
        n_replicates
    from t_bounds
)

select * from intervals
