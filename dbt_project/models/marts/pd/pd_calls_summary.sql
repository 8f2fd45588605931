{{ config(location=mart_location()) }}

with

calls as (
    select * from {{ ref('stg_calls') }}
    where game = 'pd'
),

agent_rows as (
    select
        'agent' as level,
        game,
        condition,
        agent,
        provider,
        model,
        {{ call_measures() }}
    from calls
    group by game, condition, agent, provider, model
),

-- the whole run's totals, when it made a call at all: a run of policies alone has an empty
-- calls summary
run_rows as (
    select
        'run' as level,
        null as game,
        null as condition,
        null as agent,
        null as provider,
        null as model,
        {{ call_measures() }}
    from calls
    having count(*) > 0
),

both_levels as (
    select * from run_rows
    union all
    select * from agent_rows
)

select * from both_levels
order by level, game, condition, agent, provider, model
