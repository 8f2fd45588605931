-- For every compared pair of conditions, the replicates both finished (ok): the paired
-- differences condition_1 minus condition_2 of every metric (NULL when either side is), the
-- replicate's position among the pair's common replicates and their count.

{%- set metrics = pd_interval_metrics() %}

with

pairs as (
    select * from {{ ref('int_pd_condition_pairs') }}
),

replicate_metrics as (
    select * from {{ ref('int_pd_replicate_metrics') }}
),

paired as (
    select
        pairs.condition_1,
        pairs.condition_2,
        first_side.replicate,
        {% for column in metrics %}
        first_side.{{ column }} - second_side.{{ column }} as {{ column }},
        {% endfor %}
        row_number() over (
            partition by pairs.condition_1, pairs.condition_2 order by first_side.replicate
        ) as pair_position,
        count(*) over (partition by pairs.condition_1, pairs.condition_2) as n_common
    from pairs
    inner join replicate_metrics as first_side
        on pairs.condition_1 = first_side.condition
    inner join replicate_metrics as second_side
        on
            pairs.condition_2 = second_side.condition
            and first_side.replicate = second_side.replicate
)

select * from paired
