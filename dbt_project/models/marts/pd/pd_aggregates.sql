{{ config(location=mart_location()) }}

{%- set metric_columns = pd_condition_mean_metrics() -%}
{#- How far the moves came from valid replies: means over replicates without an interval, and
    the counts behind them (NULL for a policy, and for truncation in files that did not record
    it). -#}
{%- set validity_columns = pd_condition_mean_metrics_without_interval() -%}
{%- set validity_counts = pd_condition_sum_metrics() -%}

with

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
),

matches as (
    select * from {{ ref('stg_pd_matches') }}
),

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

condition_intervals as (
    select * from {{ ref('int_pd_condition_intervals') }}
),

ok_match_metrics as (
    select
        match_metrics.*,
        matches.agent_a_name,
        matches.agent_b_name,
        matches.agent_a_kind,
        matches.agent_b_kind
    from match_metrics
    inner join matches
        on match_metrics.match_id = matches.match_id
    where match_metrics.match_status = 'ok'
),

all_matches as (
    select
        match_id,
        condition,
        match_status,
        agent_a_name,
        agent_b_name,
        agent_a_kind,
        agent_b_kind
    from matches
    union all
    select
        match_id,
        condition,
        match_status,
        null as agent_a_name,
        null as agent_b_name,
        null as agent_a_kind,
        null as agent_b_kind
    from match_metrics
    where match_status = 'incomplete'
),

condition_counts as (
    select
        condition,
        min(agent_a_name) as agent_a_name,
        min(agent_b_name) as agent_b_name,
        min(agent_a_kind) as agent_a_kind,
        min(agent_b_kind) as agent_b_kind,
        count(*) filter (where match_status = 'ok') as n_replicates,
        count(*) filter (where match_status = 'aborted') as n_aborted,
        count(*) filter (where match_status = 'incomplete') as n_incomplete
    from all_matches
    group by condition
),

condition_means as (
    select
        condition,
        -- summed in replicate order: a floating-point sum depends on the order of its terms,
        -- and the order rows reach a parallel aggregate varies between builds
        {% for column in metric_columns %}
        {% if column in pd_memory_one_metrics() %}
        -- a memory-one share pooled over the condition's visits of the previous round, the
        -- point its Wilson interval is about (every visit weighs the same)
        sum(n_c_{{ column[4:] }}) / nullif(sum(n_{{ column[4:] }}), 0) as {{ column }},
        {% else %}
        avg({{ column }} order by replicate) as {{ column }},
        {% endif %}
        {% endfor %}
        sum(rounds_played)::bigint as n_rounds,
        avg(rounds_played) as rounds_played,
        {% for column in validity_columns %}
        avg({{ column }} order by replicate) as {{ column }},
        {% endfor %}
        {% for column in validity_counts %}
        sum({{ column }})::bigint as {{ column }},
        {% endfor %}
        count(time_to_collapse) as n_collapsed,
        bool_and(is_nice_a) as is_nice_a,
        bool_and(is_nice_b) as is_nice_b,
        avg(is_nice_a::integer) as nice_rate_a,
        avg(is_nice_b::integer) as nice_rate_b
    from ok_match_metrics
    group by condition
),

condition_rows as (
    select
        'condition' as level,
        condition_counts.condition,
        null::integer as replicate,
        condition_counts.agent_a_name,
        condition_counts.agent_b_name,
        condition_counts.agent_a_kind,
        condition_counts.agent_b_kind,
        condition_counts.n_replicates,
        condition_counts.n_aborted,
        condition_counts.n_incomplete,
        coalesce(condition_means.n_collapsed, 0) as n_collapsed,
        condition_counts.n_replicates
        - coalesce(condition_means.n_collapsed, 0) as n_never_collapsed,
        coalesce(condition_means.n_rounds, 0) as n_rounds,
        condition_means.rounds_played,
        {% for column in metric_columns + validity_columns + validity_counts %}
        condition_means.{{ column }},
        {% endfor %}
        condition_means.is_nice_a,
        condition_means.is_nice_b,
        condition_means.nice_rate_a,
        condition_means.nice_rate_b
    from condition_counts
    left join condition_means
        on condition_counts.condition = condition_means.condition
),

replicate_rows as (
    select
        'replicate' as level,
        condition,
        replicate,
        agent_a_name,
        agent_b_name,
        agent_a_kind,
        agent_b_kind,
        1 as n_replicates,
        0 as n_aborted,
        0 as n_incomplete,
        (time_to_collapse is not null)::integer as n_collapsed,
        (time_to_collapse is null)::integer as n_never_collapsed,
        rounds_played as n_rounds,
        rounds_played,
        {% for column in metric_columns + validity_columns + validity_counts %}
        {{ column }},
        {% endfor %}
        is_nice_a,
        is_nice_b,
        is_nice_a::integer as nice_rate_a,
        is_nice_b::integer as nice_rate_b
    from ok_match_metrics
),

both_levels as (
    select * from condition_rows
    union all
    select * from replicate_rows
),

with_run_params as (
    select
        run_manifest.run_id,
        both_levels.*,
        run_manifest.collapse_k,
        run_manifest.collapse_threshold,
        -- the 95% intervals of the condition means, after every earlier column, and why one
        -- is NULL or clipped
        {% for column in pd_interval_metrics() %}
        condition_intervals.{{ column }}_ci_low,
        condition_intervals.{{ column }}_ci_high,
        condition_intervals.{{ column }}_ci_note,
        {% endfor %}
        run_manifest.bootstrap_n
    from both_levels
    cross join run_manifest
    left join condition_intervals
        on
            both_levels.condition = condition_intervals.condition
            and both_levels.level = 'condition'
)

select * from with_run_params
order by level, condition, replicate
