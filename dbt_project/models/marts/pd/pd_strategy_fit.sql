{{ config(location=mart_location()) }}

{#- How close each agent's play is to each reference strategy, and which is closest. The
    reference trembles with probability `pd_strategy_tremble` (default 0.05): it plays the
    other move than its rule says with that probability, so one deviation does not rule a
    strategy out. -#}
{%- set tremble = var('pd_strategy_tremble', 0.05) -%}

with

contexts as (
    select * from {{ ref('int_pd_strategy_contexts') }}
),

reference_strategies as (
    select * from {{ ref('int_pd_reference_strategies') }}
),

observed as (
    {% for level, keys in [('condition', ['condition', 'side']), ('agent', [])] %}
    select
        '{{ level }}' as level,
        {% for key in ['condition', 'side'] %}
        {{ key if key in keys else 'null' }} as {{ key }},
        {% endfor %}
        agent_name,
        previous_round,
        opponent_has_defected,
        sum(n_rounds) as n_rounds,
        sum(n_cooperate) as n_cooperate
    from contexts
    group by {{ (keys + ['agent_name', 'previous_round', 'opponent_has_defected']) | join(', ') }}
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

scored as (
    select
        observed.level,
        observed.condition,
        observed.side,
        observed.agent_name,
        reference_strategies.reference,
        reference_strategies.reference_kind,
        sum(observed.n_rounds)::bigint as n_rounds,
        -- the share of the agent's rounds in which the reference would have chosen otherwise
        -- floating-point sums in a fixed order, so every build gives the same last bit
        sum(
            observed.n_cooperate * (1 - reference_strategies.p_cooperate)
            + (observed.n_rounds - observed.n_cooperate) * reference_strategies.p_cooperate
            order by observed.previous_round, observed.opponent_has_defected
        ) / sum(observed.n_rounds) as distance,
        sum(
            observed.n_cooperate
            * ln(
                (1 - {{ tremble }}) * reference_strategies.p_cooperate
                + {{ tremble }} * (1 - reference_strategies.p_cooperate)
            )
            + (observed.n_rounds - observed.n_cooperate)
            * ln(
                (1 - {{ tremble }}) * (1 - reference_strategies.p_cooperate)
                + {{ tremble }} * reference_strategies.p_cooperate
            )
            order by observed.previous_round, observed.opponent_has_defected
        ) as log_likelihood
    from observed
    inner join reference_strategies
        on
            observed.previous_round = reference_strategies.previous_round
            and observed.opponent_has_defected = reference_strategies.opponent_has_defected
    -- a policy played in the run is not its own reference
    where
        not (
            reference_strategies.reference_kind = 'played'
            and observed.agent_name = reference_strategies.reference
        )
    group by
        observed.level,
        observed.condition,
        observed.side,
        observed.agent_name,
        reference_strategies.reference,
        reference_strategies.reference_kind
),

relative as (
    select
        *,
        -- rounded so that exactly equal fits (identical play) tie exactly
        round(log_likelihood, 9)
        - max(round(log_likelihood, 9)) over agent_row as relative_log_likelihood,
        rank() over (agent_row order by round(log_likelihood, 9) desc) as fit_rank
    from scored
    window agent_row as (partition by level, condition, side, agent_name)
),

fitted as (
    select
        *,
        -- posterior probability under a uniform prior over the reference_strategies
        exp(relative_log_likelihood)
        / sum(exp(relative_log_likelihood)) over (
            partition by level, condition, side, agent_name
            order by reference
            rows between unbounded preceding and unbounded following
        ) as posterior
    from relative
)

select
    level,
    condition,
    side,
    agent_name,
    reference,
    reference_kind,
    n_rounds,
    distance,
    log_likelihood,
    posterior,
    fit_rank,
    fit_rank = 1 as is_closest
from fitted
order by level, condition, side, agent_name, fit_rank, reference
