-- Every data test declared in the YAML of the pd models without a content tag (tagged
-- `gathered` in dbt_project.yml), run as one query after the models below
-- (macros/gathered_checks.sql); the first failing check fails the build, named as its own
-- test node would be. The refs are the pd models without a content tag that no other such
-- model reads: every pd model without a content tag is upstream of them (the models with
-- one have their own test, left out with them).
{{ config(tags=['pd']) }}
-- depends_on: {{ ref('int_pd_paired_replicates') }}
-- depends_on: {{ ref('pd_agent_cooperation_over_time') }}
-- depends_on: {{ ref('pd_match_list') }}
-- depends_on: {{ ref('pd_memory_one') }}
-- depends_on: {{ ref('pd_strategy_fit') }}
-- depends_on: {{ ref('tournament_noise_responses') }}
-- depends_on: {{ ref('tournament_payoff_matrix') }}
-- depends_on: {{ ref('tournament_standings') }}

{{ gathered_checks() }}
