-- Every interval of aggregates.parquet has both ends or neither, low <= high (1e-12 of
-- floating-point slack), and only condition rows carry one.

with

aggregates as (
    select * from {{ ref('pd_aggregates') }}
),

violations as (
    {% for column in pd_interval_metrics() %}
    select
        level,
        condition,
        replicate,
        '{{ column }}' as metric
    from aggregates
    where
        ({{ column }}_ci_low is null) != ({{ column }}_ci_high is null)
        or {{ column }}_ci_low > {{ column }}_ci_high + 1e-12
        or (level = 'replicate' and {{ column }}_ci_low is not null)
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
)

select * from violations
