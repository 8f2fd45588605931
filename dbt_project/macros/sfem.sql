{#- The SFEM strategy set (docs/strategy.md#strategy-shares-sfem), in the order every SFEM
    model lists it; each strategy's counts are the columns `deviations_<name in lowercase>`
    of int_pd_sfem_choices and int_pd_sfem_vectors. -#}
{% macro sfem_strategies() -%}
    {{ return(['ALLC', 'ALLD', 'TFT', 'STFT', 'GRIM', 'WSLS', 'GTFT', 'TF2T', 'ALT']) }}
{%- endmacro %}

{#- Whether `strategy` prescribes C in a round, over the columns round_index, previous_action,
    opponent_previous_action, opponent_second_previous_action and opponent_has_defected; NULL
    where it draws (GTFT after the opponent's D). TFT, WSLS, GTFT and TF2T cooperate first,
    STFT defects first. -#}
{% macro sfem_prescribes_cooperation(strategy) -%}
    {%- if strategy == 'ALLC' -%} true
    {%- elif strategy == 'ALLD' -%} false
    {%- elif strategy == 'TFT' -%} coalesce(opponent_previous_action = 'C', true)
    {%- elif strategy == 'STFT' -%} coalesce(opponent_previous_action = 'C', false)
    {%- elif strategy == 'GRIM' -%} not opponent_has_defected
    {%- elif strategy == 'WSLS' -%} coalesce(previous_action = opponent_previous_action, true)
    {%- elif strategy == 'GTFT' -%}
        case when opponent_previous_action = 'D' then null else true end
    {%- elif strategy == 'TF2T' -%}
        not coalesce(opponent_previous_action = 'D' and opponent_second_previous_action = 'D', false)
    {%- elif strategy == 'ALT' -%} round_index % 2 = 1
    {%- endif -%}
{%- endmacro %}

{#- Per-agent terms of a tremble e, from the column `tremble` of a one-row-per-agent
    relation, so that an EM step computes no logarithm per count vector: log_odds = ln(e / (1
    - e)); for GTFT's draws with forgiveness g (`generous_prob`), log_drawn_cooperate = ln(((1
    - e) g + e (1 - g)) / (1 - e)) and log_drawn_defect = ln(((1 - e) (1 - g) + e g) / (1 -
    e)), and the probabilities that a C or a D there was a tremble (Bayes' rule),
    tremble_given_cooperate = e (1 - g) / ((1 - e) g + e (1 - g)) and tremble_given_defect =
    e g / ((1 - e) (1 - g) + e g). -#}
{% macro sfem_tremble_terms(relation) -%}
    ln({{ relation }}.tremble / (1 - {{ relation }}.tremble)) as log_odds,
    ln(
        ((1 - {{ relation }}.tremble) * generous_prob + {{ relation }}.tremble * (1 - generous_prob))
        / (1 - {{ relation }}.tremble)
    ) as log_drawn_cooperate,
    ln(
        ((1 - {{ relation }}.tremble) * (1 - generous_prob) + {{ relation }}.tremble * generous_prob)
        / (1 - {{ relation }}.tremble)
    ) as log_drawn_defect,
    {{ relation }}.tremble * (1 - generous_prob)
    / ((1 - {{ relation }}.tremble) * generous_prob + {{ relation }}.tremble * (1 - generous_prob))
        as tremble_given_cooperate,
    {{ relation }}.tremble * generous_prob
    / ((1 - {{ relation }}.tremble) * (1 - generous_prob) + {{ relation }}.tremble * generous_prob)
        as tremble_given_defect
{%- endmacro %}

{#- The log-likelihood of a count vector's choices under one strategy, less n_choices * ln(1 -
    e), which every strategy shares (terms of sfem_tremble_terms): each deviation counts
    log_odds; for GTFT each C where it draws log_drawn_cooperate, each D there
    log_drawn_defect. All terms are <= 0 for e < 0.5. -#}
{% macro sfem_relative_log_likelihood(strategy) -%}
    deviations_{{ strategy | lower }} * log_odds
    {%- if strategy == 'GTFT' %}
        + gtft_drawn_cooperate * log_drawn_cooperate + gtft_drawn_defect * log_drawn_defect
    {%- endif %}
{%- endmacro %}

{#- The expected number of trembles among a count vector's choices under one strategy: every
    deviation is one; for GTFT a C or a D where it draws is one with the probability of
    sfem_tremble_terms. -#}
{% macro sfem_expected_trembles(strategy) -%}
    deviations_{{ strategy | lower }}
    {%- if strategy == 'GTFT' %}
        + gtft_drawn_cooperate * tremble_given_cooperate
        + gtft_drawn_defect * tremble_given_defect
    {%- endif %}
{%- endmacro %}
