{#- Files of the run directory named by the PDBENCH_RUN_DIR environment variable. -#}

{#- The run directory. The variable is read only when dbt executes; while dbt parses, a
    placeholder stands in, so dbt's saved parse does not record the run directory and stays
    valid from one run to the next.
    The path goes between quotes in SQL and DuckDB reads `*`, `?` and `[` in it as a glob
    pattern (with `\` as its escape), so a path holding any of these or a quote is refused:
    it would run as SQL or read another run's files. `pdbench aggregate` reads every run
    through a link with a plain name (engine/pdbench/storage/duckdb_paths.py). -#}
{% macro run_dir() -%}
    {%- if execute -%}
        {%- set path = env_var('PDBENCH_RUN_DIR') -%}
        {%- for character in ["'", '*', '?', '[', '\\'] -%}
            {%- if character in path -%}
                {{ exceptions.raise_compiler_error(
                    "PDBENCH_RUN_DIR (" ~ path ~ ") holds " ~ character ~ ", which DuckDB would"
                    ~ " read as SQL or as a file pattern: build this run with `pdbench aggregate`,"
                    ~ " which reads it through a link of its own, or rename its folder"
                ) }}
            {%- endif -%}
        {%- endfor -%}
        {{- path -}}
    {%- else -%}
        {{- '/run_dir' -}}
    {%- endif -%}
{%- endmacro %}

{#- Path of a file in the run directory. -#}
{% macro run_file(name) -%}
    {{- run_dir() ~ '/' ~ name -}}
{%- endmacro %}

{#- The Parquet location of the mart calling it: a template that the external
    materialization renders when it writes the file, since a model's config is fixed while
    dbt parses. The file is the model's name without its game prefix (`pd_` or `arena_`):
    pd_aggregates -> aggregates.parquet, arena_calls_summary -> calls_summary.parquet,
    leaderboard -> leaderboard.parquet. The two games' runs live in separate directories, so
    a PD and an arena mart may share a file name. -#}
{% macro mart_location() -%}
    {#- `model` is the calling model's node; sqlfluff's linter knows only `this` -#}
    {%- set model_name = model.name if model is defined else this.identifier -%}
    {%- set prefix = model_name.split('_')[0] ~ '_' -%}
    {%- set file_name = model_name[prefix | length:] if prefix in ['pd_', 'arena_'] else model_name -%}
    {{- "{{ run_dir() }}/" ~ file_name ~ ".parquet" -}}
{%- endmacro %}

{#- Read the file of a source table of the run (models/staging/_sources.yml) with the columns
    and types declared there, strictly (see read_run_json). The call of source() records the
    model's lineage from the source; the file itself is read with read_json, since the run
    directory is known only when dbt executes. -#}
{% macro read_run_source(source_name, table_name) -%}
    {%- set relation = source(source_name, table_name) -%}
    {%- if execute -%}
        {%- set table = graph.sources[
            'source.' ~ project_name ~ '.' ~ source_name ~ '.' ~ table_name
        ] -%}
        {%- set columns = {} -%}
        {%- for column in table.columns.values() -%}
            {%- do columns.update({column.name: column.data_type}) -%}
        {%- endfor -%}
        {{- read_run_json(
            table.identifier,
            columns,
            format=table.meta.get('format', 'newline_delimited'),
            required=table.meta.get('required', true)
        ) -}}
    {%- else -%}
        {{- relation -}}
    {%- endif -%}
{%- endmacro %}

{#- Where a record file of the run is: the file itself, or, in a run played in chunks on a
    cluster, a glob over the chunks' copies (shards/part-*/<name>, committed whole; see
    engine/pdbench/storage/shards.py). The glob is looked up only when dbt executes. -#}
{% macro run_record_path(name) -%}
    {%- set shards = run_file('shards/part-*/' ~ name) -%}
    {%- if execute -%}
        {#- whether, not how many: a build's statements follow from what it reads here, and
            runs in another number of chunks are built alike (pdbench.storage.dbt_plan) -#}
        {%- set found = run_query(
            "select count(*) > 0 as is_found from glob('" ~ shards ~ "')"
        ) -%}
        {%- if found.columns[0].values()[0] -%}
            {{- shards -}}
        {%- else -%}
            {{- run_file(name) -}}
        {%- endif -%}
    {%- else -%}
        {{- run_file(name) -}}
    {%- endif -%}
{%- endmacro %}

{#- JSON value types (as json_type names them) a column of each DuckDB type accepts. A
    number where a number belongs, a boolean where a boolean belongs: DuckDB's own reader
    would cast "500" to 500.0 and 2.5 to 2 without a word, so these columns are read as JSON
    and cast here, and any other value fails the build in one line naming the file, the
    column, the value and the type it should have been. -#}
{% macro strict_json_types() -%}
    {{- return({
        'INTEGER': ['UBIGINT', 'BIGINT'],
        'BIGINT': ['UBIGINT', 'BIGINT'],
        'DOUBLE': ['UBIGINT', 'BIGINT', 'DOUBLE'],
        'BOOLEAN': ['BOOLEAN'],
    }) -}}
{%- endmacro %}

{#- Read one JSON file of the run (or its chunks' copies) with explicit column types,
    strictly: a line that is not JSON fails the build, naming the file and the line, and a
    value of the wrong JSON type where a number or a boolean belongs fails it naming the file,
    the column and the value (strict_json_types).
    A torn last line (a crash while writing) never reaches dbt: `pdbench aggregate` cuts it
    off first and says so; a chunk's files are whole by construction. With required=false a
    missing file reads as an empty relation with the same typed columns: the arena engine
    builds the question models (tag arena_questions) between rating and answering, before
    answers.jsonl and judgments.jsonl exist. -#}
{% macro read_run_json(name, columns, format='newline_delimited', required=true) -%}
    {%- set path = run_record_path(name) -%}
    {%- set strict = strict_json_types() -%}
    {%- set is_present = true -%}
    {%- if not required and execute -%}
        {%- set found = run_query(
            "select count(*) > 0 as is_found from glob('" ~ path ~ "')"
        ) -%}
        {%- set is_present = found.columns[0].values()[0] -%}
    {%- endif -%}
    {%- if is_present -%}
    (
        select
        {%- for column, type in columns.items() %}
            {%- if type in strict %}
            case
                when {{ column }} is null
                    or json_type({{ column }}) in ('{{ strict[type] | join("', '") }}')
                    then {{ column }}::{{ type }}
                else error(concat(
                    _pdbench_file, ': ', '{{ column }}', ': a JSON ',
                    lower(json_type({{ column }})), ' (', left({{ column }}::varchar, 40),
                    ') where a {{ type }} belongs'
                ))
            end as {{ column }}{{ "," if not loop.last }}
            {%- else %}
            {{ column }}{{ "," if not loop.last }}
            {%- endif %}
        {%- endfor %}
        from read_json(
            '{{ path }}',
            format = '{{ format }}',
            ignore_errors = false,
            filename = '_pdbench_file',
            columns = {
            {%- for column, type in columns.items() %}
                '{{ column }}': '{{ "JSON" if type in strict else type }}'{{ "," if not loop.last }}
            {%- endfor %}
            }
        )
    )
    {%- else -%}
        (
            select
            {%- for column, type in columns.items() %}
                null::{{ type }} as {{ column }}{{ "," if not loop.last }}
            {%- endfor %}
            limit 0
        )
    {%- endif -%}
{%- endmacro %}
