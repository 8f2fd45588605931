{#- None of the listed columns is NULL. One query for all the columns of a model. -#}
{% test not_null_columns(model, columns) %}

select *
from {{ model }}
where
    false
    {% for column in columns %}
    or {{ column }} is null
    {% endfor %}

{% endtest %}
