-- The replicate-level metrics the intervals and the paired comparisons resample: one row per
-- finished (ok) match, the visits of each memory-one state and the cooperations after them
-- (n_after_cc_a, n_c_after_cc_a, ...), the trials of each rate that counts events
-- (n_trials_<metric>, pd_rate_trials()), its position among its condition's ok replicates and
-- their count.

{%- set metrics = pd_interval_metrics() %}

with

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
),

ok_matches as (
    select
        condition,
        replicate,
        {% for column in metrics %}
        {%- if column.startswith('nice_rate_') %}
        is_nice_{{ column[-1] }}::integer as {{ column }},
        {%- else %}
        {{ column }},
        {%- endif %}
        {% endfor %}
        {% for column in pd_memory_one_metrics() %}
        n_{{ column[4:] }},
        n_c_{{ column[4:] }},
        {% endfor %}
        {% for column, trials in pd_rate_trials().items() %}
        {{ trials }} as n_trials_{{ column }},
        {% endfor %}
        name_a as agent_a_name,
        name_b as agent_b_name,
        row_number() over (partition by condition order by replicate) as replicate_position,
        count(*) over (partition by condition) as n_replicates
    from match_metrics
    where match_status = 'ok'
)

select * from ok_matches
