{{ config(location=mart_location()) }}

{#- Ashlock fingerprints: the probed agent's mean score per round against the probe at each
    point, over the condition's finished replicates (Axelrod's AshlockFingerprint value). -#}
with

probe_points as (
    select * from {{ ref('stg_pd_probe_points') }}
),

match_metrics as (
    select * from {{ ref('int_pd_match_metrics') }}
    where match_status = 'ok'
),

probed_matches as (
    select
        probe_points.condition,
        probe_points.probed_side as side,
        probe_points.probe_x,
        probe_points.probe_y,
        match_metrics.replicate,
        case probe_points.probed_side
            when 'agent_a' then match_metrics.name_a else match_metrics.name_b
        end as agent_name,
        case probe_points.probed_side
            when 'agent_a' then match_metrics.payoff_per_round_a
            else match_metrics.payoff_per_round_b
        end as score_per_round,
        case probe_points.probed_side
            when 'agent_a' then match_metrics.cooperation_rate_a
            else match_metrics.cooperation_rate_b
        end as cooperation_rate
    from probe_points
    inner join match_metrics
        on probe_points.condition = match_metrics.condition
),

fingerprints as (
    select
        agent_name,
        probe_x,
        probe_y,
        condition,
        side,
        count(*) as n_matches,
        -- floating-point sums in a fixed order, so every build gives the same last bit
        avg(score_per_round order by replicate) as mean_score_per_round,
        stddev_samp(score_per_round order by replicate) as score_sd,
        stddev_samp(score_per_round order by replicate) / sqrt(count(*)) as score_se,
        avg(cooperation_rate order by replicate) as cooperation_rate
    from probed_matches
    group by agent_name, probe_x, probe_y, condition, side
)

select * from fingerprints
order by agent_name, probe_x, probe_y, condition, side
