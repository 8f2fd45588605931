{{ config(location=mart_location()) }}

with calls as (
    select
        * exclude (agent),
        agent as player
    from {{ ref('stg_calls') }}
    where game = 'arena'
),

calls_per_player_and_phase as (
    select
        player,
        phase,
        {{ call_measures() }},
        count(*) filter (where batch_id is not null) as n_batch_calls,
        sum(cost_usd) filter (where batch_id is not null) as batch_cost_usd
    from calls
    group by player, phase
)

select * from calls_per_player_and_phase
order by player, phase
