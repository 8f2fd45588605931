{#- DuckDB settings applied when a build starts. The spill folder is set here rather than in
    dbt_profiles.yml because it differs per process (pdbench's dbt worker gives each its own):
    a value in the profile would invalidate dbt's saved parse on every build. -#}
{% macro set_duckdb_temp_directory() -%}
    set temp_directory = '{{ env_var("PDBENCH_DUCKDB_TEMP_DIR", "/tmp/pdbench-duckdb") }}'
{%- endmacro %}
