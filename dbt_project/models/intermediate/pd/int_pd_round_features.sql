{#- A table, and the only reader of stg_pd_rounds (a view over rounds.jsonl): each build parses
    the JSON once and sorts the rounds of each match once, for every window below; the
    match metrics, cooperation over time, the tournament marts and the data tests on rounds
    all read this table. -#}
{{ config(materialized='table') }}

with

rounds as (
    select * from {{ ref('stg_pd_rounds') }}
),

matches as (
    select * from {{ ref('stg_pd_matches') }}
),

run_manifest as (
    select * from {{ ref('stg_pd_run_manifest') }}
),

rounds_with_status as (
    select
        rounds.match_id,
        rounds.condition,
        rounds.replicate,
        rounds.round_index,
        rounds.agent_a_name as name_a,
        rounds.agent_b_name as name_b,
        rounds.agent_a_kind as kind_a,
        rounds.agent_b_kind as kind_b,
        rounds.agent_a_intended_action as intended_action_a,
        rounds.agent_b_intended_action as intended_action_b,
        rounds.agent_a_action as action_a,
        rounds.agent_b_action as action_b,
        rounds.agent_a_payoff as payoff_a,
        rounds.agent_b_payoff as payoff_b,
        rounds.agent_a_valid as is_valid_a,
        rounds.agent_b_valid as is_valid_b,
        rounds.agent_a_attempts as n_attempts_a,
        rounds.agent_b_attempts as n_attempts_b,
        rounds.agent_a_truncated as is_truncated_a,
        rounds.agent_b_truncated as is_truncated_b,
        -- rounds of a match that has no match record yet were cut short by a crash
        coalesce(matches.match_status, 'incomplete') as match_status,
        run_manifest.collapse_k,
        run_manifest.collapse_threshold,
        (rounds.agent_a_action = 'C')::integer
        + (rounds.agent_b_action = 'C')::integer as n_cooperators
    from rounds
    left join matches
        on rounds.match_id = matches.match_id
    cross join run_manifest
),

windowed as (
    select
        *,
        lag(action_a) over match_rounds as prev_action_a,
        lag(action_b) over match_rounds as prev_action_b,
        -- the round before the previous one (tit-for-two-tats remembers it): the same window,
        -- so the rounds are not sorted again
        lag(action_a, 2) over match_rounds as prev2_action_a,
        lag(action_b, 2) over match_rounds as prev2_action_b,
        sum(payoff_a) over match_rounds as cum_payoff_a,
        sum(payoff_b) over match_rounds as cum_payoff_b,
        -- each side's defections so far, this round included (what GRIM remembers)
        sum((action_a = 'D')::integer) over match_rounds as n_defections_so_far_a,
        sum((action_b = 'D')::integer) over match_rounds as n_defections_so_far_b,
        count(*) over match_all_rounds as n_rounds_in_match,
        sum(n_cooperators) over collapse_window as window_n_cooperators,
        count(*) over collapse_window as window_n_rounds
    from rounds_with_status
    window
        match_rounds as (
            partition by match_id
            order by round_index
        ),
        match_all_rounds as (
            partition by match_id
            order by round_index
            rows between unbounded preceding and unbounded following
        ),
        collapse_window as (
            partition by match_id
            order by round_index
            rows between current row and collapse_k - 1 following  -- noqa: PRS
        )
),

features as (
    select
        match_id,
        condition,
        replicate,
        round_index,
        match_status,
        name_a,
        name_b,
        kind_a,
        kind_b,
        intended_action_a,
        intended_action_b,
        action_a,
        action_b,
        prev_action_a,
        prev_action_b,
        prev2_action_a,
        prev2_action_b,
        n_defections_so_far_a - (action_a = 'D')::integer > 0 as has_defected_before_a,
        n_defections_so_far_b - (action_b = 'D')::integer > 0 as has_defected_before_b,
        payoff_a,
        payoff_b,
        cum_payoff_a,
        cum_payoff_b,
        is_valid_a,
        is_valid_b,
        n_attempts_a,
        n_attempts_b,
        is_truncated_a,
        is_truncated_b,
        n_cooperators,
        action_a = 'C' and action_b = 'C' as is_mutual_cooperation,
        action_a = 'D' and action_b = 'D' as is_mutual_defection,
        n_rounds_in_match,
        window_n_rounds,
        window_n_cooperators / (2 * window_n_rounds) as window_cooperation_rate,
        -- only whole windows count: k rounds, or the whole match when it is shorter than k
        window_n_rounds = least(collapse_k, n_rounds_in_match)
        and window_n_cooperators / (2 * window_n_rounds) <= collapse_threshold
            as is_collapse_start
    from windowed
)

select * from features
