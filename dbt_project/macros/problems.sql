{#- A data test that says what is wrong: the test selects one row per problem, with a
    `problem` column holding one readable line (the file, the record, what is wrong), and ends
    in `where {{ fail_with('problem') }}`. The first problem then fails the build with that
    line as its message (DuckDB's error()), which `pdbench aggregate` prints as it is,
    instead of "Got 3 results, configured to fail if != 0". -#}
{% macro fail_with(problem) -%}
    error({{ problem }}) is null
{%- endmacro %}
