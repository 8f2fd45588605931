{#- Every listed column is a rate in [0, 1]. NULL passes: a rate whose condition never
    occurred. One query for all the columns of a model. `pd_metrics`: add the PD metric
    catalogue's rates, 'sided' as in aggregates.parquet (`<metric>_a`), 'agent' as in
    agent_metrics.parquet (the side's columns without the suffix). -#}
{% test are_rates(model, columns=[], pd_metrics=none) %}

{%- set checked = columns + (pd_rate_columns(pd_metrics) if pd_metrics else []) %}
select *
from {{ model }}
where
    false
    {% for column in checked %}
    or {{ column }} < 0 or {{ column }} > 1 or isnan({{ column }})
    {% endfor %}

{% endtest %}
