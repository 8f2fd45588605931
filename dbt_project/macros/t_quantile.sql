{#- The two-sided 95% quantile of Student's t with `df` degrees of freedom, t(0.975, df):
    the table's value, to 3 decimals, for df 1..30; past 30, the Cornish-Fisher expansion
    z + g1 / df + g2 / df^2 + g3 / df^3 + g4 / df^4 around z = z(0.975) (Abramowitz and
    Stegun 26.7.5), within 4e-8 of the exact quantile for every df > 30 (2.0210754 at 40,
    1.9799304 at 120). NULL for df < 1. -#}
{% macro t_quantile_975(df) -%}
    {%- set table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042] -%}
    {%- set z = 1.959963984540054 -%}
    {%- set g1 = (z ** 3 + z) / 4 -%}
    {%- set g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96 -%}
    {%- set g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384 -%}
    {%- set g4 = (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z)
        / 92160 -%}
    case
        {% for value in table -%}
        when {{ df }} = {{ loop.index }} then {{ value }}
        {% endfor -%}
        when {{ df }} > 30
            then {{ z }} + {{ g1 }} / ({{ df }}) + {{ g2 }} / ({{ df }}) ^ 2
            + {{ g3 }} / ({{ df }}) ^ 3 + {{ g4 }} / ({{ df }}) ^ 4
    end
{%- endmacro %}
