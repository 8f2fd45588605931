{#- Every listed column is a rate in [0, 1]. NULL passes: a rate whose condition never
    occurred. One query for all the columns of a model. (The PD catalogue's rates are checked
    where they are long: tests/assert_pd_rates_are_shares.sql.) -#}
{% test are_rates(model, columns) %}

select *
from {{ model }}
where
    false
    {% for column in columns %}
    or {{ column }} < 0 or {{ column }} > 1 or isnan({{ column }})
    {% endfor %}

{% endtest %}
