{#- The SFEM likelihood of one match side's choices under one strategy with tremble `tremble`
    (docs/strategy.md#strategy-shares-sfem), over the columns of int_pd_sfem_choices: a
    choice the strategy prescribes is kept with probability 1 - e and turned into the other
    move with probability e, so a prescribed choice counts ln(1 - e), a deviation ln(e), and
    a C (D) where the strategy draws C with probability p counts ln((1 - e) p + e (1 - p))
    (ln((1 - e) (1 - p) + e p)). -#}
{% macro sfem_log_likelihood(tremble) -%}
    (
        (n_choices - n_deviations - n_drawn_cooperate - n_drawn_defect) * ln(1 - {{ tremble }})
        + n_deviations * ln({{ tremble }})
        + n_drawn_cooperate
        * ln((1 - {{ tremble }}) * drawn_p_cooperate + {{ tremble }} * (1 - drawn_p_cooperate))
        + n_drawn_defect
        * ln((1 - {{ tremble }}) * (1 - drawn_p_cooperate) + {{ tremble }} * drawn_p_cooperate)
    )
{%- endmacro %}

{#- The expected number of trembles among the same choices: every deviation is one; a C where
    the strategy draws is one with probability e (1 - p) / ((1 - e) p + e (1 - p)), a D with
    probability e p / ((1 - e) (1 - p) + e p) (Bayes' rule: the draw said D and the hand
    trembled, against the draw said C and it did not). -#}
{% macro sfem_expected_trembles(tremble) -%}
    (
        n_deviations
        + n_drawn_cooperate * {{ tremble }} * (1 - drawn_p_cooperate)
        / ((1 - {{ tremble }}) * drawn_p_cooperate + {{ tremble }} * (1 - drawn_p_cooperate))
        + n_drawn_defect * {{ tremble }} * drawn_p_cooperate
        / ((1 - {{ tremble }}) * (1 - drawn_p_cooperate) + {{ tremble }} * drawn_p_cooperate)
    )
{%- endmacro %}

{#- CTE `em_steps` (step, agent_name, replicate, strategy, share, tremble): `steps` steps of
    the SFEM expectation-maximisation (docs/strategy.md#strategy-shares-sfem) in every
    replicate, from the shares and tremble of the CTE `start` (step 0), over the CTE
    `weighted_choices` (int_pd_sfem_vectors with replicate and weight: a count vector
    weighs the match sides it stands for). Each step: the posterior of each strategy for
    each count vector from the previous step's shares and tremble; the new share = the weighted mean posterior; the new tremble = the weighted
    expected trembles over the weighted choices, clamped to [0.001, 0.499]. Then CTE
    `final_steps`: the last step, with last_change, the largest change of a share or of the
    tremble in that step. The caller opens its `with` with `recursive`. -#}
{% macro sfem_em_steps(steps) -%}
    em_steps as (
        select
            0 as step,
            agent_name,
            replicate,
            strategy,
            share,
            tremble
        from start
        union all
        select
            m_step.step,
            m_step.agent_name,
            m_step.replicate,
            m_step.strategy,
            m_step.weighted_posterior
            / sum(m_step.weighted_posterior) over agent_replicate as share,
            greatest(
                0.001,
                least(
                    0.499,
                    sum(m_step.weighted_trembles) over agent_replicate
                    / sum(m_step.weighted_choices) over agent_replicate
                )
            ) as tremble
        from (
            select
                any_value(e_step.step) + 1 as step,
                e_step.agent_name,
                e_step.replicate,
                e_step.strategy,
                sum(e_step.weight * e_step.posterior) as weighted_posterior,
                sum(e_step.weight * e_step.posterior * e_step.expected_trembles)
                    as weighted_trembles,
                sum(e_step.weight * e_step.posterior * e_step.n_choices) as weighted_choices
            from (
                select
                    *,
                    relative_likelihood / sum(relative_likelihood) over match_side as posterior
                from (
                    select
                        *,
                        share * exp(log_likelihood - max(log_likelihood) over match_side)
                            as relative_likelihood
                    from (
                        select
                            weighted_choices.*,
                            em_steps.step,
                            em_steps.share,
                            {{ sfem_log_likelihood('em_steps.tremble') }} as log_likelihood,
                            {{ sfem_expected_trembles('em_steps.tremble') }}
                                as expected_trembles
                        from weighted_choices
                        inner join em_steps
                            on
                                weighted_choices.agent_name = em_steps.agent_name
                                and weighted_choices.replicate = em_steps.replicate
                                and weighted_choices.strategy = em_steps.strategy
                        where em_steps.step < {{ steps }}
                    ) as likelihoods
                    window match_side as (partition by replicate, agent_name, vector_id)
                ) as scaled
                window match_side as (partition by replicate, agent_name, vector_id)
            ) as e_step
            group by e_step.agent_name, e_step.replicate, e_step.strategy
        ) as m_step
        window agent_replicate as (partition by m_step.agent_name, m_step.replicate)
    ),

    final_steps as (
        select
            final_step.agent_name,
            final_step.replicate,
            final_step.strategy,
            final_step.share,
            final_step.tremble,
            max(
                greatest(
                    abs(final_step.share - previous_step.share),
                    abs(final_step.tremble - previous_step.tremble)
                )
            ) over (partition by final_step.agent_name, final_step.replicate) as last_change
        from em_steps as final_step
        inner join em_steps as previous_step
            on
                final_step.agent_name = previous_step.agent_name
                and final_step.replicate = previous_step.replicate
                and final_step.strategy = previous_step.strategy
                and previous_step.step = {{ steps - 1 }}
        where final_step.step = {{ steps }}
    )
{%- endmacro %}
