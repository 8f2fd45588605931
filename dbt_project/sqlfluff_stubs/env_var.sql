{#- Lint only (sqlfluff's jinja templater has no env_var); dbt never loads this folder. -#}
{% macro env_var(name, default='') -%}
    /run_dir
{%- endmacro %}
