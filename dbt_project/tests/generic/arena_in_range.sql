{#- Rows whose column lies outside [min_value, max_value] (NULL passes: a NULL score is an
    invalid one, counted elsewhere). Either bound may be omitted. -#}
{% test arena_in_range(model, column_name, min_value=none, max_value=none) %}

{%- set lower = min_value if min_value is not none else '-infinity' -%}
{%- set upper = max_value if max_value is not none else 'infinity' %}

select *
from {{ model }}
where
    {{ column_name }} is not null
    and not {{ column_name }} between '{{ lower }}'::double and '{{ upper }}'::double

{% endtest %}
