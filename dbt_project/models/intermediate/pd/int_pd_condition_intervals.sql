-- 95% intervals of every condition mean (docs/pd_intervals.md, "Which interval, which p-value").
-- A mean over replicates (rates, payoffs, rounds): Student's t interval, mean -+ t(0.975,
-- n - 1) x sd / sqrt(n) over the n replicates that define the metric; a share's interval is
-- clipped to [0, 1], and its note says so. A rate of events over counted trials
-- (pd_rate_trials()): the wider, end by end, of that t interval and its binomial floor, the
-- Wilson interval of the mean at the effective trials n^2 / sum(1 / trials_i) (the variance
-- of a mean of n binomial shares is p (1 - p) / n^2 x sum(1 / trials_i)), so that a rate of
-- rare events whose few replicates all show 0 or 1 event is not given a too narrow interval;
-- the note says when the floor widened it. A memory-one share (P(C | the previous round)):
-- the Wilson score interval on the pooled counts, c cooperations of v visits over the
-- condition's replicates. NULL, with the reason in <metric>_ci_note, when fewer than two
-- replicates define a mean's metric, when they all gave the same value and no floor exists
-- (a random quantity never gets a zero-width interval) or when the state was never visited.
-- Bounds are rounded to 9 decimals (pd_bound): floating-point residue never leaves a bound a
-- hair outside the range or off the edge.

{%- set memory_one = pd_memory_one_metrics() %}
{%- set rates = pd_rate_metrics() %}
{%- set means = pd_interval_metrics() | reject('in', memory_one) | list %}
{%- set trials = pd_rate_trials() %}
{%- set floor_note = 'widened to the binomial floor (Wilson on the pooled trials)' %}

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
        {% if column in trials %}
        -- n^2 / sum(1 / trials), only when every replicate that defines the rate counted them
        case
            when
                count(n_trials_{{ column }}) filter (where {{ column }} is not null)
                = count({{ column }})
                then count({{ column }}) ^ 2 / sum(1.0 / n_trials_{{ column }}) filter (
                    where {{ column }} is not null and n_trials_{{ column }} > 0
                )
        end as effective_trials_{{ column }},
        {% endif %}
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
        {% if column in trials %}
        {%- set mean_column, trials_column = 'mean_' ~ column, 'effective_trials_' ~ column %}
        case
            when n_{{ column }} >= 2
                then {{ pd_wilson_share_bound(mean_column, trials_column, 'low') }}
        end as {{ column }}_floor_low,
        case
            when n_{{ column }} >= 2
                then {{ pd_wilson_share_bound(mean_column, trials_column, 'high') }}
        end as {{ column }}_floor_high,
        {% endif %}
        {% endfor %}
        {% for column in memory_one %}
        n_{{ column[4:] }},
        n_c_{{ column[4:] }},
        {% endfor %}
        n_replicates
    from condition_moments
),

clipped as (
    select
        condition,
        {% for column in means %}
        {% if column in rates %}
        -- greatest() and least() skip a NULL argument: clip only a bound that exists
        -- (the templater misplaces the indent of pd_bound's rendering here)
        -- noqa: disable=LT02
        case
            when {{ column }}_raw_low is not null
                then greatest(0.0, {{ pd_bound(column ~ '_raw_low') }})
        end as {{ column }}_t_low,
        case
            when {{ column }}_raw_high is not null
                then least(1.0, {{ pd_bound(column ~ '_raw_high') }})
        end as {{ column }}_t_high,
        coalesce(
            {{ pd_bound(column ~ '_raw_low') }} < 0 or {{ pd_bound(column ~ '_raw_high') }} > 1,
            false
        ) as {{ column }}_is_clipped,
        -- noqa: enable=LT02
        {% if column in trials %}
        {{ column }}_floor_low,
        {{ column }}_floor_high,
        {% else %}
        null::double as {{ column }}_floor_low,
        null::double as {{ column }}_floor_high,
        {% endif %}
        {{ column }}_null_reason,
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
),

-- a rate's interval: the wider of its t interval and its binomial floor at each end (where
-- only one exists, that one); DuckDB's least() and greatest() would skip a NULL end
-- silently, so the cases say what a missing end means
intervals as (
    select
        condition,
        {% for column in means %}
        {% if column in rates %}
        case
            when {{ column }}_t_low is null then {{ column }}_floor_low
            when {{ column }}_floor_low is null then {{ column }}_t_low
            else least({{ column }}_t_low, {{ column }}_floor_low)
        end as {{ column }}_ci_low,
        case
            when {{ column }}_t_high is null then {{ column }}_floor_high
            when {{ column }}_floor_high is null then {{ column }}_t_high
            else greatest({{ column }}_t_high, {{ column }}_floor_high)
        end as {{ column }}_ci_high,
        case
            when {{ column }}_floor_low is null
                then
                    coalesce(
                        {{ column }}_null_reason,
                        case when {{ column }}_is_clipped then 'clipped to [0, 1]' end
                    )
            else nullif(concat_ws(
                '; ',
                {{ column }}_null_reason,
                case when {{ column }}_is_clipped then 'clipped to [0, 1]' end,
                case
                    when
                        {{ column }}_t_low is null
                        or {{ column }}_floor_low < {{ column }}_t_low
                        or {{ column }}_floor_high > {{ column }}_t_high
                        then '{{ floor_note }}'
                end
            ), '')
        end as {{ column }}_ci_note,
        {% else %}
        {{ column }}_ci_low,
        {{ column }}_ci_high,
        {{ column }}_ci_note,
        {% endif %}
        {% endfor %}
        {% for column in memory_one %}
        {{ column }}_ci_low,
        {{ column }}_ci_high,
        {{ column }}_ci_note,
        {% endfor %}
        n_replicates
    from clipped
)

select * from intervals
