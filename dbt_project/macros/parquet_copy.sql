{#- A mart written straight from its query to Parquet: `copy (<query>) to <location>`, then a
    view over the file for the models and tests that read it. dbt-duckdb's `external`
    materializes the query into a table first and copies the table (every row held twice);
    for a mart as long as the run's rounds that cost more than the sort and the write together
    (benchmarks/bench_viewer_load.py measures it). Config: `location` (mart_location()),
    `row_group_size` (rows per Parquet row group; DuckDB's default 122880). A query with no
    row writes a file with its columns and no row (no all-NULL row, unlike `external`). -#}
{% materialization parquet_copy, adapter='duckdb' %}
    {%- set location = render(config.get('location')) -%}
    {%- set row_group_size = config.get('row_group_size', 122880) -%}
    {%- set target_relation = this.incorporate(type='view') -%}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
    {% call statement('write_parquet') -%}
        copy ({{ compiled_code }}) to '{{ location }}'
        (format parquet, row_group_size {{ row_group_size }})
    {%- endcall %}
    {% call statement('main') -%}
        create or replace view {{ target_relation }} as
        select * from read_parquet('{{ location }}')
    {%- endcall %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {{ adapter.commit() }}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
    {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
