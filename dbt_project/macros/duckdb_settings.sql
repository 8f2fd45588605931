{#- DuckDB settings applied when a build by hand starts (`pdbench aggregate` applies the same
    from Python: engine/pdbench/dbt_build/execute.py). The spill folder is set here rather
    than in dbt_profiles.yml because it differs per process: a value in the profile would
    invalidate dbt's saved parse on every build. The folder's path is an SQL string, its
    quotes doubled: a quote in it never ends the string. -#}
{% macro set_duckdb_temp_directory() -%}
    {%- set folder = env_var("PDBENCH_DUCKDB_TEMP_DIR", "/tmp/pdbench-duckdb") -%}
    set temp_directory = '{{ folder | replace("'", "''") }}'
{%- endmacro %}

{#- DuckDB's threads for this build: PDBENCH_DUCKDB_THREADS when set (`pdbench aggregate`
    asks for one on a small run, where a second thread only adds its synchronisation to
    queries of a few thousand rows); otherwise DuckDB's default (one per core). -#}
{% macro set_duckdb_threads() -%}
    {%- set threads = env_var("PDBENCH_DUCKDB_THREADS", "") -%}
    {%- if threads -%}
        set threads = {{ threads | int }}
    {%- else -%}
        reset threads
    {%- endif -%}
{%- endmacro %}

{#- A build by hand selects the models of the run's own game only (the manifest's `game`,
    matched against the models' tags: every model carries the tag of each game it serves): a
    plain `dbt build` on a PD run would otherwise write the arena's marts, empty, into it.
    Refuses with the selector to use. -#}
{% macro check_run_game() -%}
    {%- if execute and not compiling_without_run() -%}
        {%- set manifest_path = run_dir_path() ~ '/run_manifest.json' -%}
        {%- set found = run_query(
            "select count(*) > 0 as is_found from glob('" ~ manifest_path ~ "')"
        ).columns[0].values()[0] -%}
        {%- if found -%}
            {%- set game = run_query(
                "select game from read_json('" ~ manifest_path
                ~ "', format = 'auto', columns = {game: 'varchar'})"
            ).columns[0].values()[0] -%}
            {%- set strangers = [] -%}
            {%- for unique_id in selected_resources -%}
                {%- set node = graph.nodes.get(unique_id) -%}
                {%- if node and node.resource_type == 'model' and game not in node.tags -%}
                    {%- do strangers.append(node.name) -%}
                {%- endif -%}
            {%- endfor -%}
            {%- if strangers -%}
                {{ exceptions.raise_compiler_error(
                    "this is a " ~ game ~ " run (run_manifest.json); the build also selects "
                    ~ strangers | length ~ " models of another game (" ~ strangers[0]
                    ~ ", ...): select the run's own with --select tag:" ~ game
                ) }}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}
    select 1
{%- endmacro %}
