{#- The columns together identify a row; NULLs compare equal, so a level whose key has a
    NULL part (e.g. replicate at condition level) is still checked. -#}
{% test unique_combination(model, columns) %}

select
    {{ columns | join(', ') }},
    count(*) as n_rows
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1

{% endtest %}
