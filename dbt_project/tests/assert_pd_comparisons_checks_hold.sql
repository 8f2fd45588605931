-- Every data test declared in the YAML of the pd models tagged pd_comparisons (tagged `gathered` in
-- dbt_project.yml), run as one query after the marts below (macros/gathered_checks.sql); the
-- first failing check fails the build, named as its own test node would be. The refs are
-- the pd models tagged pd_comparisons that no other model reads: every such model is upstream
-- of them.
{{ config(tags=['pd']) }}
-- depends_on: {{ ref('pd_comparisons') }}

{{ gathered_checks('pd_comparisons') }}
