{#- Where each agent's SFEM fit (int_pd_sfem_fits) starts: each count vector
    (int_pd_sfem_vectors) given to the strategies that disagree least with its choices
    (deviations; for GTFT where it draws, the expected disagreements, 1 - g for a C and g
    for a D), split equally among ties; a share = 0.9 times the share of sides so given plus
    0.1 / 9, so that no strategy starts at 0 (the EM never revives a share at 0); the
    tremble = the disagreements of the given strategies over all choices, within [0.001,
    0.5]. From there the EM needs few steps when the strategies are told apart. -#}
{{ config(materialized='table') }}
{%- set strategies = sfem_strategies() %}

with

vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

disagreements as (
    select
        {%- for strategy in strategies %}
        {%- if strategy == 'GTFT' %}
        deviations_gtft + gtft_drawn_cooperate * (1 - generous_prob)
        + gtft_drawn_defect * generous_prob as disagreements_gtft,
        {%- else %}
        deviations_{{ strategy | lower }} as disagreements_{{ strategy | lower }},
        {%- endif %}
        {%- endfor %}
        agent_name,
        generous_prob,
        n_sides,
        n_choices
    from vectors
),

closest as (
    select
        *,
        least(
            {%- for strategy in strategies %}
            disagreements_{{ strategy | lower }}{{ ',' if not loop.last }}
            {%- endfor %}
        ) as fewest
    from disagreements
),

given as (
    select
        *,
        (
            {%- for strategy in strategies %}
            (disagreements_{{ strategy | lower }} = fewest)::integer{{ ' +' if not loop.last }}
            {%- endfor %}
        ) as n_closest
    from closest
)

select
    agent_name,
    any_value(generous_prob) as generous_prob,
    {%- for strategy in strategies %}
    0.9 * sum(n_sides * (disagreements_{{ strategy | lower }} = fewest)::integer / n_closest)
    / sum(n_sides) + 0.1 / {{ strategies | length }} as share_{{ strategy | lower }},
    {%- endfor %}
    greatest(0.001, least(0.5, sum(n_sides * fewest) / sum(n_sides * n_choices))) as tremble
from given
group by agent_name
