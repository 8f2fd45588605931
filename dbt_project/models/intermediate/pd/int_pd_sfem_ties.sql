{#- The strategies of each agent's SFEM fit (int_pd_sfem_fits) grouped by what they prescribe
    in everything the agent met: two strategies whose counts agree in every count vector of
    the agent (int_pd_sfem_vectors) have the same likelihood whatever the tremble, so the
    data cannot tell them apart (ALLC, TFT, GRIM, WSLS, GTFT and TF2T for an agent that only
    met cooperators). One row per agent and strategy: its group, named by the first of its
    strategies in the SFEM order (`group_order`), the group's share and size. -#}
{{ config(materialized='table') }}

with

fits as (
    select * from {{ ref('int_pd_sfem_fits') }}
),

vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

strategy_counts as (
    select
        fits.agent_name,
        fits.strategy,
        fits.strategy_order,
        fits.share,
        vectors.vector_id,
        case fits.strategy
            {%- for strategy in sfem_strategies() %}
            when '{{ strategy }}' then vectors.deviations_{{ strategy | lower }}
            {%- endfor %}
        end as n_deviations,
        case when fits.strategy = 'GTFT' then vectors.gtft_drawn_cooperate else 0 end
            as n_drawn_cooperate,
        case when fits.strategy = 'GTFT' then vectors.gtft_drawn_defect else 0 end
            as n_drawn_defect
    from vectors
    inner join fits on vectors.agent_name = fits.agent_name
),

-- an order-free fingerprint of a strategy's counts over all the agent's vectors
signatures as (
    select
        agent_name,
        strategy,
        strategy_order,
        any_value(share) as share,
        bit_xor(hash(vector_id, n_deviations, n_drawn_cooperate, n_drawn_defect)) as signature
    from strategy_counts
    group by agent_name, strategy, strategy_order
)

select
    agent_name,
    strategy,
    strategy_order,
    min(strategy_order) over tie as group_order,
    sum(share) over tie as group_share,
    count(*) over tie as group_size
from signatures
window tie as (partition by agent_name, signature)
