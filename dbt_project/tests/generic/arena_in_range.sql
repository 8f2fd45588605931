{#- Rows whose column lies outside [min_value, max_value] (NULL passes: a NULL score is an
    invalid one, counted elsewhere). Either bound may be omitted. -#}
{% test arena_in_range(model, column_name, min_value=none, max_value=none) %}

select *
from {{ model }}
where {{ column_name }} is not null
    and (
        false
        {%- if min_value is not none %}
            or {{ column_name }} < {{ min_value }}
        {%- endif %}
        {%- if max_value is not none %}
            or {{ column_name }} > {{ max_value }}
        {%- endif %}
    )

{% endtest %}
