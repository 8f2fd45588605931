{#- Strategy shares and tremble of each agent by the Strategy Frequency Estimation Method (Dal
    Bo and Frechette 2011; docs/strategy.md#strategy-shares-sfem), by
    expectation-maximisation over its distinct count vectors (int_pd_sfem_vectors, each
    weighing its n_sides) from int_pd_sfem_starts. The agent plays strategy s for a whole
    match side with probability share_s; playing s it makes s's choice with probability
    1 - e and the other move with probability e (the tremble). One row per agent and step,
    the shares as columns, so that a step is one join and one aggregation (a vector whose
    likelihood underflows under every strategy left counts nothing). Each vector's
    posteriors are computed with its largest relative log-likelihood taken out, so that no
    term underflows. The steps stop when one raised the log-likelihood by less than var
    pd_sfem_tolerance (default 1e-8) times its size, or after var pd_sfem_max_steps
    (default 400). A step's log_likelihood and gain are those of the previous step's shares
    and tremble. -#}
{{ config(materialized='table') }}
{%- set strategies = sfem_strategies() %}
{%- set max_steps = var('pd_sfem_max_steps', 400) | int %}
{%- set tolerance = var('pd_sfem_tolerance', 1e-8) %}

with recursive vectors as (
    select * from {{ ref('int_pd_sfem_vectors') }}
),

starts as (
    select * from {{ ref('int_pd_sfem_starts') }}
),

em_steps as (
    select
        0 as step,
        agent_name,
        {%- for strategy in strategies %}
        share_{{ strategy | lower }},
        {%- endfor %}
        tremble,
        null::double as log_likelihood,
        null::double as gain,
        generous_prob
    from starts
    union all
    select
        step,
        agent_name,
        {%- for strategy in strategies %}
        sum(n_sides * weight_{{ strategy | lower }} / total) / sum(n_sides)
            as share_{{ strategy | lower }},
        {%- endfor %}
        greatest(0.001, least(0.5, sum(n_sides * (
            {%- for strategy in strategies %}
            weight_{{ strategy | lower }}
            * ({{ sfem_expected_trembles(strategy) }})
            {{- ' +' if not loop.last }}
            {%- endfor %}
        ) / total) / sum(n_sides * n_choices))) as tremble,
        sum(n_sides * (n_choices * ln(1 - previous_tremble) + largest + ln(total)))
            as log_likelihood,
        sum(n_sides * (n_choices * ln(1 - previous_tremble) + largest + ln(total)))
        - any_value(previous_log_likelihood) as gain,
        any_value(generous_prob) as generous_prob
    from (
        select
            *,
            greatest(
                {%- for strategy in strategies %}
                weight_{{ strategy | lower }}{{ ' +' if not loop.last else ',' }}
                {%- endfor %}
                1e-300
            ) as total
        from (
            select
                {%- for strategy in strategies %}
                share_{{ strategy | lower }}
                * exp(relative_{{ strategy | lower }} - largest) as weight_{{ strategy | lower }},
                {%- endfor %}
                *
            from (
                select
                    *,
                    greatest(
                        {%- for strategy in strategies %}
                        relative_{{ strategy | lower }}{{ ',' if not loop.last }}
                        {%- endfor %}
                    ) as largest
                from (
                    select
                        vectors.*,
                        state.step + 1 as step,
                        {%- for strategy in strategies %}
                        state.share_{{ strategy | lower }},
                        {{ sfem_relative_log_likelihood(strategy) }}
                            as relative_{{ strategy | lower }},
                        {%- endfor %}
                        state.tremble as previous_tremble,
                        state.log_likelihood as previous_log_likelihood,
                        state.tremble_given_cooperate,
                        state.tremble_given_defect
                    from vectors
                    inner join (
                        select
                            em_steps.step,
                            em_steps.agent_name,
                            {%- for strategy in strategies %}
                            em_steps.share_{{ strategy | lower }},
                            {%- endfor %}
                            em_steps.tremble,
                            em_steps.log_likelihood,
                            {{ sfem_tremble_terms('em_steps') }}
                        from em_steps
                        where
                            em_steps.step < {{ max_steps }}
                            and coalesce(
                                em_steps.gain >= {{ tolerance }} * abs(em_steps.log_likelihood),
                                true
                            )
                    ) as state on vectors.agent_name = state.agent_name
                ) as relative_likelihoods
            ) as largest_terms
        ) as weights
    ) as posteriors
    group by agent_name, step
),

final_steps as (
    select * exclude (log_likelihood, generous_prob)
    from em_steps
    qualify step = max(step) over (partition by agent_name)
)

select
    * exclude (step, gain),
    step as n_em_steps,
    gain as last_gain
from final_steps
