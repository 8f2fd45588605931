{{ config(location=run_file('tournament_noise_responses.parquet')) }}

with

agent_rounds as (
    select * from {{ ref('int_pd_agent_rounds') }}
),

with_next as (
    select
        agent,
        intended_action <> action as is_own_flip,
        opponent_intended_action <> opponent_action as is_opponent_flip,
        action,
        opponent_action,
        -- the response is what the agent meant to play next, before noise could flip it
        lead(intended_action) over (
            partition by match_id, side
            order by round_index
        ) as next_intended_action
    from agent_rounds
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
