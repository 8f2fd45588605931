-- One row per valid stated strategy and state its agent met in the match the statement
-- opens: the stated probability of cooperating in that state and the share of the agent's
-- rounds in that state in which it chose to cooperate (its intended action, before
-- execution noise; rounds where every reply was invalid and a fallback was played are not
-- the agent's choice and are left out). The state of round 1 is 'first'; of a later round,
-- the round before as the agent saw it, its own action first: cc, cd, dc, dd. Beside them,
-- on every row of the match: the mean points per round the stated table earned played by
-- pdbench against a copy of the opponent (NULL against an LLM) and what the agent earned.

with

statements as (
    select * from {{ ref('stg_pd_statements') }}
    where is_valid
),

finished_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

-- the agent's own choices: not the rounds where a fallback was played for it
agent_rounds as (
    select * from finished_rounds
    where coalesce(is_valid, true)
),

round_states as (
    select
        match_id,
        side,
        intended_action = 'C' as is_cooperation,
        case
            when round_index = 1 then 'first'
            else lower(previous_action || opponent_previous_action)
        end as state
    from agent_rounds
),

match_points as (
    select
        match_id,
        side,
        avg(payoff) as played_points_per_round
    from finished_rounds
    group by match_id, side
),

played as (
    select
        match_id,
        side,
        state,
        count(*) as n_rounds,
        avg(is_cooperation::integer) as played_p
    from round_states
    group by match_id, side, state
),

-- one row per statement and state: the table's five columns unpivoted, each named by its
-- state (first_p: 'first', cc_p: 'cc', ...)
stated_columns as (
    unpivot statements
    on first_p, cc_p, cd_p, dc_p, dd_p
    into name stated_column value stated_p
),

stated as (
    select
        match_id,
        condition,
        replicate,
        side,
        agent_name,
        replace(stated_column, '_p', '') as state,
        stated_p,
        stated_points_per_round
    from stated_columns
),

compared as (
    select
        stated.match_id,
        stated.condition,
        stated.replicate,
        stated.side,
        stated.agent_name,
        stated.state,
        stated.stated_p,
        played.n_rounds,
        played.played_p,
        stated.stated_p - played.played_p as difference,
        stated.stated_points_per_round,
        match_points.played_points_per_round
    from stated
    inner join played
        on
            stated.match_id = played.match_id
            and stated.side = played.side
            and stated.state = played.state
    inner join match_points
        on
            stated.match_id = match_points.match_id
            and stated.side = match_points.side
)

select * from compared
