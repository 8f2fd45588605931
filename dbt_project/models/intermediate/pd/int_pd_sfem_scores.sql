{#- Each agent's SFEM fit (int_pd_sfem_strategies) held against each of its count vectors
    (int_pd_sfem_vectors), per group of strategies that prescribe the same in everything the
    agent met (they tie: the data cannot tell them apart, and they count as one strategy
    here): the vector's log-likelihood under the group's strategy at the fitted tremble e,
    its first and second derivatives in e, and `likelihood_ratio`, the vector's likelihood
    under the group over its likelihood under the whole fitted mixture (groups:
    int_pd_sfem_strategies). The observed
    information of the fit (int_pd_sfem_information) sums these. -#}
{{ config(materialized='table') }}

with

vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

representatives as (
    select * from {{ ref('int_pd_sfem_strategies') }}
    where strategy_order = group_order
),

-- one strategy of each group stands for it: the likelihoods of its members are the same
strategy_counts as (
    select
        vectors.agent_name,
        vectors.vector_id,
        vectors.n_sides,
        vectors.n_choices,
        vectors.generous_prob,
        representatives.group_order,
        representatives.group_share,
        representatives.group_size,
        representatives.tremble,
        case representatives.strategy
            {%- for strategy in sfem_strategies() %}
            when '{{ strategy }}' then vectors.deviations_{{ strategy | lower }}
            {%- endfor %}
        end as n_deviations,
        case when representatives.strategy = 'GTFT' then vectors.gtft_drawn_cooperate else 0 end
            as n_drawn_cooperate,
        case when representatives.strategy = 'GTFT' then vectors.gtft_drawn_defect else 0 end
            as n_drawn_defect
    from vectors
    inner join representatives on vectors.agent_name = representatives.agent_name
),

group_counts as (
    select
        strategy_counts.*,
        strategy_counts.n_choices - strategy_counts.n_deviations
        - strategy_counts.n_drawn_cooperate - strategy_counts.n_drawn_defect as n_kept,
        (1 - strategy_counts.tremble) * strategy_counts.generous_prob
        + strategy_counts.tremble * (1 - strategy_counts.generous_prob) as p_drawn_cooperate,
        (1 - strategy_counts.tremble) * (1 - strategy_counts.generous_prob)
        + strategy_counts.tremble * strategy_counts.generous_prob as p_drawn_defect
    from strategy_counts
),

-- ll = k ln(1 - e) + d ln(e) + c ln(p_c(e)) + f ln(p_d(e)), with p_c' = 1 - 2g, p_d' = 2g - 1
derivatives as (
    select
        agent_name,
        vector_id,
        n_sides,
        group_order,
        group_share,
        group_size,
        tremble,
        n_kept * ln(1 - tremble) + n_deviations * ln(tremble)
        + n_drawn_cooperate * ln(p_drawn_cooperate) + n_drawn_defect * ln(p_drawn_defect)
            as log_likelihood,
        -n_kept / (1 - tremble) + n_deviations / tremble
        + n_drawn_cooperate * (1 - 2 * generous_prob) / p_drawn_cooperate
        + n_drawn_defect * (2 * generous_prob - 1) / p_drawn_defect as score,
        -n_kept / (1 - tremble) ^ 2 - n_deviations / tremble ^ 2
        - n_drawn_cooperate * (1 - 2 * generous_prob) ^ 2 / p_drawn_cooperate ^ 2
        - n_drawn_defect * (2 * generous_prob - 1) ^ 2 / p_drawn_defect ^ 2 as curvature
    from group_counts
),

scaled as (
    select
        *,
        exp(log_likelihood - max(log_likelihood) over vector) as scaled_likelihood,
        max(log_likelihood) over vector as largest_log_likelihood
    from derivatives
    window vector as (partition by agent_name, vector_id)
)

select
    agent_name,
    vector_id,
    n_sides,
    group_order,
    group_share,
    group_size,
    tremble,
    score,
    curvature,
    scaled_likelihood
    / sum(group_share * scaled_likelihood) over (partition by agent_name, vector_id)
        as likelihood_ratio,
    largest_log_likelihood
    + ln(sum(group_share * scaled_likelihood) over (partition by agent_name, vector_id))
        as vector_log_likelihood
from scaled
