{{ config(materialized='table') }}

-- The SFEM fit (int_pd_sfem_fits) again in each bootstrap replicate 1 .. pd_sfem_draws of
-- int_pd_sfem_draws (a match side drawn k times weighs k; the draws come summed by count
-- vector, the fit runs over int_pd_sfem_vectors): the same expectation-maximisation
-- (macros/sfem.sql), started from the agent's fit, pd_sfem_bootstrap_steps (default 20)
-- steps. Started there, a replicate needs fewer steps than the fit from equal shares.

{%- set bootstrap_steps = var('pd_sfem_bootstrap_steps', 20) | int %}

with recursive choices as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

draws as (
    select * from {{ ref('int_pd_sfem_draws') }}
),

fits as (
    select * from {{ ref('int_pd_sfem_fits') }}
),

weighted_choices as (
    select
        draws.replicate,
        draws.weight,
        choices.*
    from draws
    inner join choices
        on
            draws.agent_name = choices.agent_name
            and draws.vector_id = choices.vector_id
),

agent_replicates as (
    select distinct
        agent_name,
        replicate
    from draws
),

start as (
    select
        fits.agent_name,
        agent_replicates.replicate,
        fits.strategy,
        fits.share,
        fits.tremble
    from fits
    inner join agent_replicates
        on fits.agent_name = agent_replicates.agent_name
),

{{ sfem_em_steps(bootstrap_steps) }}

select * from final_steps
