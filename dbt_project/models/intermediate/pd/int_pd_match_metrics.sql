{#- One row per PD match (any status): the metrics of the match as a whole, then every
    metric of each agent (int_pd_agent_match_metrics) under its name with the side's suffix
    (`<metric>_a`, `<metric>_b`), for the readers of a match as one row. -#}
{{ config(materialized='table') }}

with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

agent_match_metrics as (
    select * from {{ ref('int_pd_agent_match_metrics') }}
),

match_totals as (
    select
        match_id,
        condition,
        replicate,
        match_status,
        name_a,
        name_b,
        count(*) as rounds_played,
        2 * count(*) as n_moves,
        avg(n_cooperators) / 2 as cooperation_rate,
        avg(is_mutual_cooperation::integer) as mutual_cooperation_rate,
        avg(is_mutual_defection::integer) as mutual_defection_rate,
        min(round_index) filter (where is_collapse_start) as time_to_collapse
    -- the agents' names are the match's: were they not, its match_id would not be unique
    from round_features
    group by match_id, condition, replicate, match_status, name_a, name_b
),

side_a as (
    select * exclude (condition, replicate, match_status, side, agent, kind)
    from agent_match_metrics
    where side = 'agent_a'
),

side_b as (
    select * exclude (condition, replicate, match_status, side, agent, kind)
    from agent_match_metrics
    where side = 'agent_b'
),

match_metrics as (
    select
        match_totals.*,
        -- every column of a side but the key, renamed with the side's suffix (DuckDB's
        -- COLUMNS rename, which the linter reads as a quoted identifier)
        columns(side_a.* exclude (match_id)) as '\0_a',  -- noqa: RF02, RF05
        columns(side_b.* exclude (match_id)) as '\0_b',  -- noqa: RF02, RF05
        case
            when
                (side_a.is_llm or side_b.is_llm)
                and (not side_a.is_llm or side_a.is_validity_recorded)
                and (not side_b.is_llm or side_b.is_validity_recorded)
                then
                    (
                        coalesce(side_a.n_fallback_moves, 0)
                        + coalesce(side_b.n_fallback_moves, 0)
                    ) / (2 * match_totals.rounds_played)
        end as fallback_move_share
    from match_totals
    inner join side_a
        on match_totals.match_id = side_a.match_id
    inner join side_b
        on match_totals.match_id = side_b.match_id
)

select * from match_metrics
