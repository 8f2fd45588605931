{{ config(materialized='table') }}

-- Strategy shares and tremble of each agent by the Strategy Frequency Estimation Method
-- (Dal Bo and Frechette 2011; docs/strategy.md#strategy-shares-sfem) on the agent's match
-- sides as they are (replicate 0, each side weighing 1: each distinct count vector of
-- int_pd_sfem_vectors weighing its n_sides).
--
-- The agent plays strategy s for a whole match side with probability share_s; playing s it
-- makes s's choice with probability 1 - e and the other move with probability e (the
-- tremble). The log-likelihood, sum over sides of ln sum_s share_s L_s(side; e), is
-- maximised by expectation-maximisation (macros/sfem.sql) from equal shares and e = 0.1,
-- pd_sfem_steps (default 100) steps. Strategies that prescribe the same in everything the
-- agent met keep equal shares: the data cannot tell them apart.

{%- set sfem_steps = var('pd_sfem_steps', 100) | int %}

with recursive choices as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

weighted_choices as (
    select
        0 as replicate,
        n_sides as weight,
        *
    from choices
),

agent_strategies as (
    select distinct
        agent_name,
        strategy
    from choices
),

start as (
    select
        agent_name,
        0 as replicate,
        strategy,
        1 / count(*) over (partition by agent_name) as share,  -- noqa: RF04
        0.1::double as tremble
    from agent_strategies
),

{{ sfem_em_steps(sfem_steps) }}

select * from final_steps
