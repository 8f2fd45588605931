{#- Every mart: a Parquet file in the run directory, written straight from its query:
    `copy (<query>) to <run directory>/<location>`, then a view over the file for the models
    and tests that read it. A query with no row writes a file with its columns and no row.
    (dbt-duckdb's `external` materializes the query into a table first and copies the table,
    every row held twice, and writes one row of NULLs for an empty query.)
    Config: `location` (the file, relative to the run directory: mart_location()),
    `row_group_size` (rows per Parquet row group; DuckDB's default 122880). `pdbench aggregate`
    sends DuckDB these same two statements (engine/pdbench/dbt_build/execute.py). -#}
{% materialization parquet_copy, adapter='duckdb' %}
    {%- set location = "pdbench_run_dir() || '/" ~ config.get('location') ~ "'" -%}
    {%- set row_group_size = config.get('row_group_size', 122880) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {% call statement('write_parquet') -%}
        copy ({{ compiled_code }}) to ({{ location }})
        (format parquet, row_group_size {{ row_group_size }})
    {%- endcall %}
    {% call statement('main') -%}
        create or replace view {{ target_relation }} as
        select * from read_parquet({{ location }})
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
