{#- A rate lies in [0, 1]; NULL passes (a rate whose condition never occurred). -#}
{% test is_rate(model, column_name) %}

select {{ column_name }}
from {{ model }}
where {{ column_name }} < 0 or {{ column_name }} > 1 or isnan({{ column_name }})

{% endtest %}
