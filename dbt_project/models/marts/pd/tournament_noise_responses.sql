{{ config(location=mart_location()) }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

-- the same rounds again, read a second time rather than held in memory as a shared CTE
next_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
    where match_status = 'ok'
),

flipped_rounds as (
    select
        match_id,
        side,
        round_index,
        agent,
        intended_action <> action as is_own_flip,
        opponent_intended_action <> opponent_action as is_opponent_flip,
        action,
        opponent_action
    from agent_rounds
    where intended_action <> action or opponent_intended_action <> opponent_action
),

-- the next round of the same match and side by a join on round_index + 1 (rounds of a match
-- are numbered 1, 2, ...): a hash join on the few flipped rounds, where a window would sort
-- every round
with_next as (
    select
        flipped_rounds.agent,
        flipped_rounds.is_own_flip,
        flipped_rounds.is_opponent_flip,
        flipped_rounds.action,
        flipped_rounds.opponent_action,
        -- the response is what the agent meant to play next, before noise could flip it
        next_rounds.intended_action as next_intended_action
    from flipped_rounds
    inner join next_rounds
        on
            flipped_rounds.match_id = next_rounds.match_id
            and flipped_rounds.side = next_rounds.side
            and flipped_rounds.round_index + 1 = next_rounds.round_index
),

responses as (
    select
        agent,
        'own' as flipped_side,
        action as flipped_to,
        next_intended_action
    from with_next
    where is_own_flip and next_intended_action is not null
    union all
    select
        agent,
        'opponent' as flipped_side,
        opponent_action as flipped_to,
        next_intended_action
    from with_next
    where is_opponent_flip and next_intended_action is not null
),

noise_responses as (
    select
        agent,
        flipped_side,
        flipped_to,
        count(*) as n_flips,
        avg((next_intended_action = 'C')::double) as next_cooperation_rate
    from responses
    group by agent, flipped_side, flipped_to
)

select * from noise_responses
order by agent, flipped_side, flipped_to
