{#- Each agent's SFEM fit (int_pd_sfem_fits) one row per strategy, with the strategies grouped
    by what they prescribe in everything the agent met: two strategies whose counts agree in every count vector of
    the agent (int_pd_sfem_vectors) have the same likelihood whatever the tremble, so the
    data cannot tell them apart (ALLC, TFT, GRIM, WSLS, GTFT and TF2T for an agent that only
    met cooperators). One row per agent and strategy: its share, the agent's tremble and the
    fit's steps, its group, named by the first of its strategies in the SFEM order
    (`group_order`), the group's share and size. -#}
{%- set strategies = sfem_strategies() %}
{{ config(materialized='table') }}

with

fits as (
    select * from {{ ref('int_pd_sfem_fits') }}
),

vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

strategy_fits as (
    select
        fits.agent_name,
        strategies.strategy,
        strategies.strategy_order,
        case strategies.strategy
            {%- for strategy in strategies %}
            when '{{ strategy }}' then fits.share_{{ strategy | lower }}
            {%- endfor %}
        end as share,  -- noqa: RF04
        fits.tremble,
        fits.n_em_steps,
        fits.last_gain
    from fits
    cross join (
        values
        {%- for strategy in strategies %}
        ('{{ strategy }}', {{ loop.index }}){{ ',' if not loop.last }}
        {%- endfor %}
    ) as strategies (strategy, strategy_order)
),

strategy_counts as (
    select
        strategy_fits.agent_name,
        strategy_fits.strategy,
        strategy_fits.strategy_order,
        vectors.vector_id,
        case strategy_fits.strategy
            {%- for strategy in strategies %}
            when '{{ strategy }}' then vectors.deviations_{{ strategy | lower }}
            {%- endfor %}
        end as n_deviations,
        case when strategy_fits.strategy = 'GTFT' then vectors.gtft_drawn_cooperate else 0 end
            as n_drawn_cooperate,
        case when strategy_fits.strategy = 'GTFT' then vectors.gtft_drawn_defect else 0 end
            as n_drawn_defect
    from vectors
    inner join strategy_fits on vectors.agent_name = strategy_fits.agent_name
),

-- an order-free fingerprint of a strategy's counts over all the agent's vectors
signatures as (
    select
        agent_name,
        strategy,
        bit_xor(hash(vector_id, n_deviations, n_drawn_cooperate, n_drawn_defect)) as signature
    from strategy_counts
    group by agent_name, strategy
)

select
    strategy_fits.*,
    min(strategy_fits.strategy_order) over tie as group_order,
    sum(strategy_fits.share) over tie as group_share,
    count(*) over tie as group_size
from strategy_fits
inner join signatures
    on
        strategy_fits.agent_name = signatures.agent_name
        and strategy_fits.strategy = signatures.strategy
window tie as (partition by strategy_fits.agent_name, signatures.signature)
