{#- lowbias32 (C. Wellons' 32-bit integer hash), behind both games' bootstraps and
    permutations: a bijection on 0 .. 2^32-1 written with plain integer arithmetic, so the
    draws are the same on every DuckDB version (DuckDB's own hash() is not promised to be
    stable). The argument must be an integer in 0 .. 2^32-1; it appears 8 times in the
    expansion, so pass a column. -#}
{% macro mix32(x) -%}
    {%- set step_1 = "xor((" ~ x ~ ")::ubigint, (" ~ x ~ ")::ubigint >> 16)" -%}
    {%- set step_2 = "((" ~ step_1 ~ ") * 2146121005::ubigint % 4294967296::ubigint)" -%}
    {%- set step_3 = "xor(" ~ step_2 ~ ", " ~ step_2 ~ " >> 15)" -%}
    {%- set step_4 = "((" ~ step_3 ~ ") * 2221713035::ubigint % 4294967296::ubigint)" -%}
    xor({{ step_4 }}, {{ step_4 }} >> 16)
{%- endmacro %}
