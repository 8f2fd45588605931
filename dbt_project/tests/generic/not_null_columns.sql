{#- None of the listed columns is NULL. One query for all the columns of a model. -#}
{% test not_null_columns(model, columns) %}

select *
from {{ model }}
where
    {%- for column in columns %}
    {{ "or " if not loop.first }}{{ column }} is null
    {%- endfor %}

{% endtest %}
