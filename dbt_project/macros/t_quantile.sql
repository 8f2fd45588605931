{#- The two-sided 95% quantile of Student's t with `df` degrees of freedom, t(0.975, df):
    exact to 3 decimals for df 1..30; past 30, the value at the next tabulated smaller df
    (30, 40, 60, 120), which errs wide. NULL for df < 1. -#}
{% macro t_quantile_975(df) -%}
    {%- set table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042] -%}
    case
        {% for value in table -%}
        when {{ df }} = {{ loop.index }} then {{ value }}
        {% endfor -%}
        when {{ df }} <= 40 then 2.042
        when {{ df }} <= 60 then 2.021
        when {{ df }} <= 120 then 2.000
        when {{ df }} > 120 then 1.980
    end
{%- endmacro %}
