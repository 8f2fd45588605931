{#- Attempts per extraction rule within each group of `keys` (columns of stg_calls) for the
    calls of `game`: how each reply was read, invalid replies under the rule 'invalid' and
    failed calls under 'error'. The share of the 'invalid' row is the group's share of
    invalid attempts. -#}
{% macro parse_rule_counts(game, keys) -%}
with

calls as (
    select
        {{ keys | join(', ') }},
        case
            when call_status = 'error' then 'error'
            when call_status = 'cancelled' then 'cancelled'
            when call_status = 'invalid' then 'invalid'
            else coalesce(parse_rule, 'unrecorded')
        end as parse_rule
    from {{ ref('stg_calls') }}
    where game = '{{ game }}'
),

counted as (
    select
        {{ keys | join(', ') }},
        parse_rule,
        count(*) as n_attempts
    from calls
    group by {{ keys | join(', ') }}, parse_rule
),

shared as (
    select
        *,
        n_attempts / sum(n_attempts) over (partition by {{ keys | join(', ') }})
            as share_of_attempts
    from counted
)

select * from shared
order by {{ keys | join(', ') }}, parse_rule
{%- endmacro %}
