{#- The distinct count vectors of each agent's match sides (int_pd_sfem_choices): sides with
    the same counts have the same likelihood under every strategy and tremble, so the fit
    (int_pd_sfem_fits) runs over these rows, each weighing `n_sides`, and gives what it
    would over the sides one by one. `generous_prob`: GTFT's forgiveness as the single-label
    fit reads it from the run's payoffs (int_pd_reference_strategies). -#}
{{ config(materialized='table') }}

with

choices as (
    select * from {{ ref('int_pd_sfem_choices') }}
),

reference_strategies as (
    select * from {{ ref('int_pd_reference_strategies') }}
),

generosity as (
    select p_cooperate as generous_prob
    from reference_strategies
    where
        reference = 'GTFT'
        and previous_round = 'CD'
        and opponent_has_defected
),

vectors as (
    select
        agent_name,
        n_choices,
        {%- for strategy in sfem_strategies() %}
        deviations_{{ strategy | lower }},
        {%- endfor %}
        gtft_drawn_cooperate,
        gtft_drawn_defect,
        count(*) as n_sides
    from choices
    group by all
)

select
    vectors.*,
    generosity.generous_prob,
    row_number() over (
        partition by vectors.agent_name
        order by
            vectors.n_choices,
            {%- for strategy in sfem_strategies() %}
            vectors.deviations_{{ strategy | lower }},
            {%- endfor %}
            vectors.gtft_drawn_cooperate,
            vectors.gtft_drawn_defect
    ) as vector_id
from vectors
cross join generosity
