{#- Files of the run directory named by the PDBENCH_RUN_DIR environment variable. -#}

{#- Path of a file in the run directory (marts use it as their Parquet location). -#}
{% macro run_file(name) -%}
    {{- env_var('PDBENCH_RUN_DIR') ~ '/' ~ name -}}
{%- endmacro %}

{#- Read one JSONL file of the run with explicit column types. A torn last line (a crash
    while writing) is skipped rather than failing the build. -#}
{% macro read_run_jsonl(name, columns) -%}
    read_json(
        '{{ run_file(name) }}',
        format = 'newline_delimited',
        ignore_errors = true,
        columns = {
        {%- for column, type in columns.items() %}
            {{ column }}: '{{ type }}'{{ "," if not loop.last }}
        {%- endfor %}
        }
    )
{%- endmacro %}
