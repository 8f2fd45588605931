{#- One row per column a metric fills in the wide marts: the catalogue (seed pd_metrics) with
    a metric of each agent given twice, `<metric>_a` and `<metric>_b`, and its trials and
    successes named as the columns of int_pd_match_metrics that hold them. -#}
with

catalogue as (
    select * from {{ ref('pd_metrics') }}
),

sides as (
    select unnest(['a', 'b']) as side
),

metric_columns as (
    select
        catalogue.metric || coalesce('_' || sides.side, '') as column_name,
        catalogue.metric,
        sides.side,
        catalogue.position,
        row_number() over (order by catalogue.position, sides.side) as column_position,
        catalogue.label,
        catalogue.is_rate,
        catalogue.interval as interval_kind,
        catalogue.bounds,
        catalogue.condition,
        catalogue.trials || coalesce('_' || sides.side, '') as trials_column,
        catalogue.successes || coalesce('_' || sides.side, '') as successes_column
    from catalogue
    left join sides
        on catalogue.per_agent
)

select * from metric_columns
