{#- A score as it is compared and ranked: rounded to 9 decimals, so that two scores equal but
    for floating-point noise (5.287389256428573 and ...571, from sums taken in another order)
    are equal, and ties fall to the documented rule rather than to the last bit. -#}
{% macro comparable(expression) -%}
    round({{ expression }}, 9)
{%- endmacro %}
