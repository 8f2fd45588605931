{#- The distinct count vectors of each agent's match sides (int_pd_sfem_choices.vector_id),
    one row per agent, vector and strategy, with `n_sides`, how many of the agent's sides
    have that vector. A side's SFEM likelihood under every strategy and tremble depends on
    its counts only, so the fits (macros/sfem.sql) run over these rows, each weighing its
    n_sides, and give what they would over the sides one by one. -#}
{{ config(materialized='table') }}

with

choices as (
    select * from {{ ref('int_pd_sfem_choices') }}
),

vectors as (
    select
        agent_name,
        vector_id,
        strategy,
        any_value(n_choices) as n_choices,
        any_value(n_deviations) as n_deviations,
        any_value(n_drawn_cooperate) as n_drawn_cooperate,
        any_value(n_drawn_defect) as n_drawn_defect,
        any_value(drawn_p_cooperate) as drawn_p_cooperate,
        count(*) as n_sides
    from choices
    group by agent_name, vector_id, strategy
)

select * from vectors
