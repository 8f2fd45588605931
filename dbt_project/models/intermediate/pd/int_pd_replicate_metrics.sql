-- One row per finished (ok) match: its condition and replicate, the agents' names, its
-- position among its condition's ok replicates and their count. The replicates' metrics are
-- long, in int_pd_metric_values.

with

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
),

ok_matches as (
    select
        condition,
        replicate,
        name_a as agent_a_name,
        name_b as agent_b_name,
        row_number() over (partition by condition order by replicate) as replicate_position,
        count(*) over (partition by condition) as n_replicates
    from match_metrics
    where match_status = 'ok'
)

select * from ok_matches
