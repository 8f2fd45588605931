{#- Rows for which a boolean SQL expression over the model's columns is false (rows where it
    is NULL pass, so the check applies only where every operand is known). -#}
{% test arena_expression_is_true(model, expression) %}

select *
from {{ model }}
where not ({{ expression }})

{% endtest %}
