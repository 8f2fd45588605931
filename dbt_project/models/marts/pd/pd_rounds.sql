{#- Sorted by match and round, in row groups of 16,384 rounds: the Parquet statistics of
    match_id let a reader of one match skip every row group that cannot hold it. Written
    by the parquet_copy materialization (macros/parquet_copy.sql), straight from the query:
    a mart as long as the run's rounds is not held twice on its way to the file. -#}
{{ config(
    materialized='parquet_copy',
    location=mart_location(),
    row_group_size=16384,
) }}

with

round_features as (
    select * from {{ ref('int_pd_round_features') }}
),

match_rounds as (
    select
        match_id,
        round_index,
        name_a as agent_a_name,
        name_b as agent_b_name,
        kind_a as agent_a_kind,
        kind_b as agent_b_kind,
        intended_action_a as agent_a_intended_action,
        intended_action_b as agent_b_intended_action,
        action_a as agent_a_action,
        action_b as agent_b_action,
        payoff_a as agent_a_payoff,
        payoff_b as agent_b_payoff,
        cum_payoff_a as agent_a_cum_payoff,
        cum_payoff_b as agent_b_cum_payoff,
        is_valid_a as agent_a_valid,
        is_valid_b as agent_b_valid,
        n_attempts_a as agent_a_attempts,
        n_attempts_b as agent_b_attempts
    from round_features
)

select * from match_rounds
order by match_id, round_index
