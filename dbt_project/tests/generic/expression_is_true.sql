{#- Every row makes the boolean expression true. NULL fails: an expression that may be NULL
    for a good reason says so itself (`x is null or ...`), so a NULL never passes unnoticed.
    The project's one expression test. -#}
{% test expression_is_true(model, expression) %}

select *
from {{ model }}
where not coalesce({{ expression }}, false)

{% endtest %}
