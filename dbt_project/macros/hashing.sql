{#- lowbias32 (C. Wellons' 32-bit integer hash), behind both games' bootstraps and
    permutations: a bijection on 0 .. 2^32-1 written with plain integer arithmetic, so the
    draws are the same on every DuckDB version (DuckDB's own hash() is not promised to be
    stable). A DuckDB macro, mix32(x), that a compiled statement calls by name, defined once
    when a build starts (the on-run-start hook define_hashing(); `pdbench aggregate` runs the
    same statement). The argument must be an integer in 0 .. 2^32-1; DuckDB writes it out 8
    times in the expansion, so pass a column. -#}
{% macro define_hashing() -%}
    {%- set step_1 = "xor(x::ubigint, x::ubigint >> 16)" -%}
    {%- set step_2 = "((" ~ step_1 ~ ") * 2146121005::ubigint % 4294967296::ubigint)" -%}
    {%- set step_3 = "xor(" ~ step_2 ~ ", " ~ step_2 ~ " >> 15)" -%}
    {%- set step_4 = "((" ~ step_3 ~ ") * 2221713035::ubigint % 4294967296::ubigint)" -%}
create or replace macro mix32(x) as xor({{ step_4 }}, {{ step_4 }} >> 16)
{%- endmacro %}

{#- CTEs `seed_halves`, `seed_low_mixed` and `seed_key` (one row: `count_column`, seed_key): the
    63-bit seed `seed_column` of the one-row CTE `source` folded into one 32-bit key for
    stream `stream`, so that each use of one seed draws its own numbers (PD: 1 the bootstrap
    draws, 2 the random sign flips, 3 the Moran runs; arena: 1 the bootstrap, 2 the
    permutation test, 3 the pairwise bootstrap). -#}
{% macro seed_key_ctes(source, stream, seed_column='bootstrap_seed', count_column='bootstrap_n') -%}
    seed_halves as (
        select
            {{ count_column }},
            (({{ seed_column }} % 4294967296) + 4294967296) % 4294967296 as seed_low,
            ((({{ seed_column }} // 4294967296) % 4294967296) + 4294967296) % 4294967296
                as seed_high
        from {{ source }}
    ),

    seed_low_mixed as (
        select
            {{ count_column }},
            seed_high,
            mix32(xor(seed_low, {{ stream }})) as low_key
        from seed_halves
    ),

    seed_key as (
        select
            {{ count_column }},
            mix32(xor(low_key, seed_high::ubigint)) as seed_key
        from seed_low_mixed
    )
{%- endmacro %}

{#- CTEs `replicate_keys` (replicate, replicate_key: one row per bootstrap replicate of the CTE
    `seed_key`) and `draw_keys` (replicate, draw_index, `count_column`, draw_key): replicate b
    draws as many items as the one-row CTE `item_count` counts in `count_column`, draw i
    picking the item at position 1 + draw_key mod that count. No draws when there is no item. -#}
{% macro bootstrap_draw_keys(item_count, count_column) -%}
    replicate_keys as (
        select
            replicate,
            mix32(xor(seed_key, replicate::ubigint)) as replicate_key
        from (
            select
                seed_key,
                unnest(generate_series(1, bootstrap_n)) as replicate
            from seed_key
        ) as replicates
    ),

    draw_keys as (
        select
            replicate,
            draw_index,
            {{ count_column }},
            mix32(xor(replicate_key, draw_index::ubigint)) as draw_key
        from (
            select
                replicate_keys.replicate,
                replicate_keys.replicate_key,
                {{ item_count }}.{{ count_column }},
                unnest(generate_series(1, {{ item_count }}.{{ count_column }})) as draw_index
            from replicate_keys
            cross join {{ item_count }}
            where {{ item_count }}.{{ count_column }} > 0
        ) as draw_slots
    )
{%- endmacro %}
