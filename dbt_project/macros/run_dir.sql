{#- The run directory's files, as the compiled SQL names them: through two kinds of DuckDB
    macros (`create macro`), defined before any model runs, never through a path written into
    the SQL. So a model compiles to the same statement for every run, and dbt compiles the
    project once per version of it (engine/pdbench/dbt_build/compilation.py):

    - pdbench_run_dir(): the run directory (where the marts are written);
    - pdbench_files_<file>() (pdbench_files_rounds_jsonl()): the files a record file of the
      run is read from: the file itself, or, in a run played in chunks on a cluster, the
      chunks' copies (shards/part-*/<name>, committed whole; engine/pdbench/storage/shards.py)
      in part order; for an optional file (meta.required: false) that is absent, one empty file.

    DuckDB macros rather than variables: a variable is its connection's alone, and dbt runs each
    of its threads on a connection of its own. `pdbench aggregate` defines them from Python
    (engine/pdbench/dbt_build/execute.py, with paths that hold nothing SQL or DuckDB reads as
    syntax); a build by hand (`PDBENCH_RUN_DIR=<run> dbt build`) defines them in the
    on-run-start hook define_run_macros(), from PDBENCH_RUN_DIR. -#}

{#- The run directory, spliced into a quoted path: '{{ run_dir() }}/tournaments/*.parquet'
    compiles to '' || pdbench_run_dir() || '/tournaments/*.parquet'. -#}
{% macro run_dir() -%}
    {{- "' || pdbench_run_dir() || '" -}}
{%- endmacro %}

{#- The name of the DuckDB macro that lists the files of record file `name` (see above). -#}
{% macro record_files_macro(name) -%}
    {{- 'pdbench_files_' ~ modules.re.sub('[^A-Za-z0-9_]', '_', name) -}}
{%- endmacro %}

{#- PDBENCH_RUN_DIR, for the on-run-start hooks of a build by hand. The path goes between
    quotes in SQL and DuckDB reads `*`, `?` and `[` in it as a glob pattern (with `\` as its
    escape), so a path holding any of these or a quote is refused: it would run as SQL or read
    another run's files. `pdbench aggregate` reads every run through a link with a plain name
    (engine/pdbench/storage/duckdb_paths.py). -#}
{% macro run_dir_path() -%}
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
{%- endmacro %}

{#- Whether this invocation only compiles the project, without a run: `pdbench aggregate`
    compiles it so, once per version of the project, and the hooks then define nothing. -#}
{% macro compiling_without_run() -%}
    {{- return(flags.WHICH == 'compile' and env_var('PDBENCH_RUN_DIR', '') == '') -}}
{%- endmacro %}

{#- The on-run-start hook of a build by hand: defines the macros above from PDBENCH_RUN_DIR,
    the run's record files found as pdbench finds them (engine/pdbench/storage/shards.py
    record_files: the file, else the chunks' copies). An absent required file stays named,
    so that DuckDB's error names it; an absent optional one reads as /dev/null (no rows). -#}
{% macro define_run_macros() -%}
    {%- if execute and not compiling_without_run() -%}
        {%- set path = run_dir_path() -%}
        {%- set found = run_query(
            "select coalesce(list(file order by file), []) from glob('" ~ path ~ "/*')"
        ).columns[0].values()[0] -%}
        {%- set shards = run_query(
            "select coalesce(list(file order by file), []) from glob('" ~ path
            ~ "/shards/part-*/*')"
        ).columns[0].values()[0] -%}
        {%- do run_query("create or replace macro pdbench_run_dir() as '" ~ path ~ "'") -%}
        {%- for table in graph.sources.values() -%}
            {%- set single = path ~ '/' ~ table.identifier -%}
            {%- set files = [single] if single in found else [] -%}
            {%- if not files -%}
                {%- for file in shards if file.endswith('/' ~ table.identifier) -%}
                    {%- do files.append(file) -%}
                {%- endfor -%}
            {%- endif -%}
            {%- if not files -%}
                {%- do files.append(single if table.meta.get('required', true) else '/dev/null') -%}
            {%- endif -%}
            {%- do run_query(
                "create or replace macro " ~ record_files_macro(table.identifier) ~ "() as ['"
                ~ files | map('replace', "'", "''") | join("', '") ~ "']::varchar[]"
            ) -%}
        {%- endfor -%}
    {%- endif -%}
    select 1
{%- endmacro %}

{#- The Parquet file of the mart calling it, relative to the run directory; the parquet_copy
    materialization writes it there (macros/parquet_copy.sql). The file is the model's name
    without its game prefix (`pd_` or `arena_`): pd_aggregates -> aggregates.parquet,
    arena_calls_summary -> calls_summary.parquet, leaderboard -> leaderboard.parquet. The two
    games' runs live in separate directories, so a PD and an arena mart may share a file
    name. -#}
{% macro mart_location() -%}
    {#- `model` is the calling model's node; sqlfluff's linter knows only `this` -#}
    {%- set model_name = model.name if model is defined else this.identifier -%}
    {%- set prefix = model_name.split('_')[0] ~ '_' -%}
    {%- set file_name = model_name[prefix | length:] if prefix in ['pd_', 'arena_'] else model_name -%}
    {{- file_name ~ ".parquet" -}}
{%- endmacro %}

{#- Read the file of a source table of the run (models/staging/_sources.yml) with the columns
    and types declared there, strictly (see read_run_json). The call of source() records the
    model's lineage from the source; the files themselves are read with read_json, through
    the run's macros (see above). -#}
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
            format=table.meta.get('format', 'newline_delimited')
        ) -}}
    {%- else -%}
        {{- relation -}}
    {%- endif -%}
{%- endmacro %}

{#- The on-run-start hook that defines how read_run_json reads a column strictly: a number
    where a number belongs, a boolean where a boolean belongs. DuckDB's own reader would cast
    "500" to 500.0 and 2.5 to 2 without a word, so these columns are read as JSON and read here
    from the text of their JSON value, by one macro per type (strict_json_types): a JSON
    number's text is the number itself, a string's is quoted, a boolean's is true or false, so
    one cast of the text reads a number and refuses every other JSON type; an integer's text
    has no '.', 'e' or 'E' (with one it is a fraction or an exponent, a JSON double), and an
    integer too large for its column is refused too. A JSON null is NULL. Anything else fails
    the build in one line naming the file, the column, the JSON type of the value, the value
    and the type it should have been (json_type_error; the JSON type is looked up only
    then). -#}
{% macro define_record_checks() -%}
create or replace macro json_type_error(value, file, column_name, type_name) as
    case
        when value is null or json_type(value) = 'NULL' then null
        else error(concat(
            file, ': ', column_name, ': a JSON ', lower(json_type(value)),
            ' (', left(value::varchar, 40), ') where a ', type_name, ' belongs'
        ))
    end;
create or replace macro json_whole_number(value) as
    not (
        contains(value::varchar, '.')
        or contains(value::varchar, 'e')
        or contains(value::varchar, 'E')
    );
create or replace macro json_integer(value, file, column_name) as coalesce(
    case when json_whole_number(value) then try_cast(value::varchar as integer) end,
    json_type_error(value, file, column_name, 'INTEGER')
);
create or replace macro json_bigint(value, file, column_name) as coalesce(
    case when json_whole_number(value) then try_cast(value::varchar as bigint) end,
    json_type_error(value, file, column_name, 'BIGINT')
);
create or replace macro json_double(value, file, column_name) as coalesce(
    try_cast(value::varchar as double),
    json_type_error(value, file, column_name, 'DOUBLE')
);
create or replace macro json_boolean(value, file, column_name) as
    case value::varchar
        when 'true' then true
        when 'false' then false
        else json_type_error(value, file, column_name, 'BOOLEAN')
    end
{%- endmacro %}

{#- The DuckDB types read_run_json reads strictly, each by the macro of define_record_checks
    that reads it. -#}
{% macro strict_json_types() -%}
    {{- return({
        'INTEGER': 'json_integer',
        'BIGINT': 'json_bigint',
        'DOUBLE': 'json_double',
        'BOOLEAN': 'json_boolean',
    }) -}}
{%- endmacro %}

{#- Read one JSON file of the run (or its chunks' copies) with explicit column types,
    strictly: a line that is not JSON fails the build, naming the file and the line, and a
    value of the wrong JSON type where a number or a boolean belongs fails it naming the file,
    the column and the value (strict_json_types).
    A torn last line (a crash while writing) never reaches dbt: `pdbench aggregate` cuts it
    off first and says so; a chunk's files are whole by construction. An optional file
    (meta.required: false) that is absent is read from an empty file: no rows, the same typed
    columns. The arena engine builds the question models (tag arena_questions) between rating
    and answering, before answers.jsonl and judgments.jsonl exist. -#}
{% macro read_run_json(name, columns, format='newline_delimited') -%}
    {%- set strict = strict_json_types() -%}
    (
        select
        {%- for column, type in columns.items() %}
            {%- if type in strict %}
            {{ strict[type] }}({{ column }}, _pdbench_file, '{{ column }}') as {{ column }}
            {{- "," if not loop.last }}
            {%- else %}
            {{ column }}{{ "," if not loop.last }}
            {%- endif %}
        {%- endfor %}
        from read_json(
            {{ record_files_macro(name) }}(),
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
{%- endmacro %}
