-- Every data test declared in the YAML of the series models (tagged `gathered` in
-- dbt_project.yml), run as one query after the game's last marts (macros/gathered_checks.sql);
-- the first failing check fails the build, named as its own test node would be.
-- The refs below are the series models nothing else reads: every series model is upstream of them.
{{ config(tags=['series']) }}
-- depends_on: {{ ref('series_players') }}

{{ gathered_checks() }}
