{#- Groups whose mean of the column differs from `value` by more than `tolerance`. -#}
{% test arena_group_mean_equals(model, column_name, group_by, value, tolerance=0.000000001) %}

select
    {{ group_by }},
    avg({{ column_name }}) as group_mean
from {{ model }}
where {{ column_name }} is not null
group by {{ group_by }}
having abs(avg({{ column_name }}) - {{ value }}) > {{ tolerance }}

{% endtest %}
