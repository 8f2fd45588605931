{#- The SQL of a unit test's input rows (a `given:` of the models' YAML), in place of dbt's own
    get_fixture_sql (dbt-adapters' global project; a macro of the root project takes its place).

    dbt writes every column of the input into every row, `cast(null as <type>) as <column>`
    for each one the row leaves out: a few rows of a wide input (int_pd_wide_metrics, 150
    columns) made a unit test's statement tens of KB, mostly NULLs. Here the input's columns and
    types come from the input itself, with no row, and the rows follow as a table of the
    columns they give:

        select * from <input> where false
        union all by name
        select * from (values
            ('m1', cast(1 as INTEGER), 'C'),
            ('m1', cast(2 as INTEGER), null)
        ) as given_rows ("match_id", "round_index", "action")

    Each value is cast as dbt casts it (format_row, which also refuses a column the input does
    not have), a text value of a text column being a string literal already. `union all by
    name` matches columns by name and leaves a column the rows do not give NULL, of the input's
    type: the rows dbt would have made, column for column. dbt reads the input's columns from
    the database before the test as it always does, so the input is built first either way;
    `where false` reads none of its rows. -#}
{% macro get_fixture_sql(rows, column_name_to_data_types) -%}
    {%- set column_name_to_data_types = {} -%}
    {%- set column_name_to_quoted = {} -%}
    {%- for column in adapter.get_columns_in_relation(this) -%}
        {%- do column_name_to_data_types.update({column.name | lower: column.data_type}) -%}
        {%- do column_name_to_quoted.update({column.name | lower: column.quoted}) -%}
    {%- endfor -%}
    {%- if not column_name_to_data_types -%}
        {{ exceptions.raise_compiler_error(
            "Not able to get columns for unit test '" ~ model.name ~ "' from relation "
            ~ this ~ " because the relation doesn't exist"
        ) }}
    {%- endif -%}
    {#- the columns some row gives a value, in the order the rows give them; each row's cells -#}
    {%- set names = [] -%}
    {%- set table = [] -%}
    {%- for row in rows -%}
        {%- set formatted = format_row(row, column_name_to_data_types) -%}
        {%- set cells = {} -%}
        {%- for column_name, value in row.items() if value is not none -%}
            {%- set name = column_name | lower -%}
            {%- set type = column_name_to_data_types[name].split('(')[0] | trim | lower -%}
            {%- if value is string and type in ['character varying', 'varchar', 'text'] -%}
                {%- do cells.update({name: dbt.string_literal(dbt.escape_single_quotes(value))}) -%}
            {%- else -%}
                {%- do cells.update({name: formatted[name] | trim}) -%}
            {%- endif -%}
            {%- if name not in names -%}
                {%- do names.append(name) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do table.append(cells) -%}
    {%- endfor -%}
    {#- rows that give no value at all are rows of NULLs all the same -#}
    {%- if rows and not names -%}
        {%- do names.append(column_name_to_quoted.keys() | first) -%}
    {%- endif -%}
-- Fixture for {{ model.name }}: its columns, then the rows given
select * from {{ this }} where false
{%- if rows %}
union all by name
select * from (values
    {%- for cells in table %}
    ({% for name in names %}{{ cells.get(name, 'null') }}{{ ', ' if not loop.last }}{% endfor %}){{ ',' if not loop.last }}
    {%- endfor %}
) as given_rows ({% for name in names %}{{ column_name_to_quoted[name] }}{{ ', ' if not loop.last }}{% endfor %})
{%- endif %}
{%- endmacro %}
