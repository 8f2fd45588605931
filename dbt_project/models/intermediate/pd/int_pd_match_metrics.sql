{{ config(materialized='table') }}

{%- set sides = [('a', 'b'), ('b', 'a')] -%}
{%- set match_keys = ['match_id', 'condition', 'replicate', 'match_status', 'name_a', 'name_b'] -%}
{#- Memory-one states from the agent's own point of view: own previous action first. -#}
{%- set memory_one_states = [
    ('cc', 'C', 'C'), ('cd', 'C', 'D'), ('dc', 'D', 'C'), ('dd', 'D', 'D'),
] -%}

with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

match_totals as (
    select
        {% for key in match_keys %}
        {{ key }},
        {% endfor %}
        {% for own, opp in sides %}
        avg((action_{{ own }} = 'C')::integer) as cooperation_rate_{{ own }},
        sum(payoff_{{ own }}) as total_payoff_{{ own }},
        count(*) filter (where prev_action_{{ opp }} = 'D') as n_opponent_defections_{{ own }},
        count(*) filter (
            where prev_action_{{ opp }} = 'D' and action_{{ own }} = 'D'
        ) as n_retaliations_{{ own }},
        count(*) filter (
            where prev_action_{{ opp }} = 'D' and action_{{ own }} = 'C'
        ) as n_forgivenesses_{{ own }},
        {% for state, own_prev, opp_prev in memory_one_states %}
        count(*) filter (
            where prev_action_{{ own }} = '{{ own_prev }}'
            and prev_action_{{ opp }} = '{{ opp_prev }}'
        ) as n_after_{{ state }}_{{ own }},
        count(*) filter (
            where prev_action_{{ own }} = '{{ own_prev }}'
            and prev_action_{{ opp }} = '{{ opp_prev }}'
            and action_{{ own }} = 'C'
        ) as n_c_after_{{ state }}_{{ own }},
        {% endfor %}
        min(round_index) filter (where action_{{ own }} = 'D') as first_defection_round_{{ own }},
        bool_or(kind_{{ own }} = 'llm') as is_llm_{{ own }},
        count(*) filter (where not is_valid_{{ own }}) as n_fallback_moves_{{ own }},
        avg((action_{{ own }} = 'C')::integer) filter (
            where is_valid_{{ own }}
        ) as cooperation_rate_valid_{{ own }},
        -- a valid move took one valid attempt, after any invalid ones; a fallback, none
        sum(n_attempts_{{ own }} - is_valid_{{ own }}::integer)::bigint
            as n_invalid_attempts_{{ own }},
        sum(n_attempts_{{ own }})::bigint as n_attempts_{{ own }},
        -- NULL when the rounds did not record truncation (schema version 1)
        sum(is_truncated_{{ own }}::integer)::bigint as n_truncated_rounds_{{ own }},
        count(is_valid_{{ own }}) as n_validity_recorded_{{ own }},
        {% endfor %}
        count(*) as rounds_played,
        avg(n_cooperators) / 2 as cooperation_rate,
        avg(is_mutual_cooperation::integer) as mutual_cooperation_rate,
        avg(is_mutual_defection::integer) as mutual_defection_rate,
        min(round_index) filter (where is_collapse_start) as time_to_collapse
    from round_features
    -- the agents' names are the match's: were they not, its match_id would not be unique
    group by {{ match_keys | join(', ') }}
),

match_metrics as (
    select
        {% for key in match_keys %}
        {{ key }},
        {% endfor %}
        rounds_played,
        cooperation_rate,
        {% for own, opp in sides %}
        cooperation_rate_{{ own }},
        {% endfor %}
        mutual_cooperation_rate,
        mutual_defection_rate,
        {% for own, opp in sides %}
        total_payoff_{{ own }},
        total_payoff_{{ own }} / rounds_played as payoff_per_round_{{ own }},
        total_payoff_{{ opp }} - total_payoff_{{ own }} as exploitability_payoff_gap_{{ own }},
        n_retaliations_{{ own }} / nullif(n_opponent_defections_{{ own }}, 0)
            as retaliation_rate_{{ own }},
        n_forgivenesses_{{ own }} / nullif(n_opponent_defections_{{ own }}, 0)
            as forgiveness_rate_{{ own }},
        {% for state, own_prev, opp_prev in memory_one_states %}
        n_c_after_{{ state }}_{{ own }} / nullif(n_after_{{ state }}_{{ own }}, 0)
            as p_c_after_{{ state }}_{{ own }},
        n_after_{{ state }}_{{ own }},
        n_c_after_{{ state }}_{{ own }},
        {% endfor %}
        first_defection_round_{{ own }},
        -- never defects before the opponent has defected in an earlier round: defecting in
        -- the same round as the opponent's first defection is not nice
        coalesce(
            first_defection_round_{{ own }} > first_defection_round_{{ opp }},
            first_defection_round_{{ own }} is null
        ) as is_nice_{{ own }},
        cooperation_rate_valid_{{ own }},
        case
            when is_llm_{{ own }} and n_validity_recorded_{{ own }} = rounds_played
                then n_fallback_moves_{{ own }}
        end as n_fallback_moves_{{ own }},
        case
            -- an imported run whose source did not record validity: not recorded, not 0
            when is_llm_{{ own }} and n_validity_recorded_{{ own }} = rounds_played
                then n_fallback_moves_{{ own }} / rounds_played
        end as fallback_move_share_{{ own }},
        case
            when is_llm_{{ own }}
                then n_invalid_attempts_{{ own }} / nullif(n_attempts_{{ own }}, 0)
        end as invalid_attempt_share_{{ own }},
        case when is_llm_{{ own }} then n_truncated_rounds_{{ own }} end
            as n_truncated_rounds_{{ own }},
        {% endfor %}
        case
            when
                (is_llm_a or is_llm_b)
                and (not is_llm_a or n_validity_recorded_a = rounds_played)
                and (not is_llm_b or n_validity_recorded_b = rounds_played)
                then
                    (
                        coalesce(n_fallback_moves_a, 0) + coalesce(n_fallback_moves_b, 0)
                    ) / (2 * rounds_played)
        end as fallback_move_share,
        time_to_collapse
    from match_totals
)

select * from match_metrics
