{{ config(location=mart_location()) }}

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

wide_metrics as (
    select * from {{ ref('int_pd_wide_metrics') }}
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

-- what no mean or pooled share gives: counts summed over the replicates, niceness in every
-- replicate
condition_totals as (
    select
        condition,
        sum(rounds_played)::bigint as n_rounds,
        avg(rounds_played) as rounds_played,
        count(time_to_collapse) as n_collapsed,
        sum(n_fallback_moves_a)::bigint as n_fallback_moves_a,
        sum(n_fallback_moves_b)::bigint as n_fallback_moves_b,
        sum(n_truncated_rounds_a)::bigint as n_truncated_rounds_a,
        sum(n_truncated_rounds_b)::bigint as n_truncated_rounds_b,
        bool_and(is_nice_a) as is_nice_a,
        bool_and(is_nice_b) as is_nice_b
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
        coalesce(condition_totals.n_collapsed, 0) as n_collapsed,
        condition_counts.n_replicates
        - coalesce(condition_totals.n_collapsed, 0) as n_never_collapsed,
        coalesce(condition_totals.n_rounds, 0) as n_rounds,
        condition_totals.rounds_played,
        -- every metric of the catalogue, then its interval
        columns(wide_metrics.* exclude (level, condition, replicate)),  -- noqa: RF02
        condition_totals.n_fallback_moves_a,
        condition_totals.n_fallback_moves_b,
        condition_totals.n_truncated_rounds_a,
        condition_totals.n_truncated_rounds_b,
        condition_totals.is_nice_a,
        condition_totals.is_nice_b
    from condition_counts
    left join condition_totals
        on condition_counts.condition = condition_totals.condition
    left join wide_metrics
        on
            condition_counts.condition = wide_metrics.condition
            and wide_metrics.level = 'condition'
),

replicate_rows as (
    select
        'replicate' as level,
        ok_match_metrics.condition,
        ok_match_metrics.replicate,
        ok_match_metrics.agent_a_name,
        ok_match_metrics.agent_b_name,
        ok_match_metrics.agent_a_kind,
        ok_match_metrics.agent_b_kind,
        1 as n_replicates,
        0 as n_aborted,
        0 as n_incomplete,
        (ok_match_metrics.time_to_collapse is not null)::integer as n_collapsed,
        (ok_match_metrics.time_to_collapse is null)::integer as n_never_collapsed,
        ok_match_metrics.rounds_played as n_rounds,
        ok_match_metrics.rounds_played,
        columns(wide_metrics.* exclude (level, condition, replicate)),  -- noqa: RF02
        ok_match_metrics.n_fallback_moves_a,
        ok_match_metrics.n_fallback_moves_b,
        ok_match_metrics.n_truncated_rounds_a,
        ok_match_metrics.n_truncated_rounds_b,
        ok_match_metrics.is_nice_a,
        ok_match_metrics.is_nice_b
    from ok_match_metrics
    left join wide_metrics
        on
            ok_match_metrics.condition = wide_metrics.condition
            and ok_match_metrics.replicate = wide_metrics.replicate
            and wide_metrics.level = 'replicate'
),

both_levels as (
    select * from condition_rows
    union all by name
    select * from replicate_rows
),

with_run_params as (
    select
        run_manifest.run_id,
        both_levels.*,
        run_manifest.collapse_k,
        run_manifest.collapse_threshold,
        run_manifest.bootstrap_n
    from both_levels
    cross join run_manifest
)

select * from with_run_params
order by level, condition, replicate
