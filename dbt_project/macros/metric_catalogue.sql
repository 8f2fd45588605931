{#- Reading the PD's metric catalogue (macros/pd_metric_catalogue.sql): the lists of metric
    columns the models loop over are filters of it, so a metric is named in one place. -#}

{#- Every entry of the catalogue, in its order. -#}
{% macro pd_metric_catalogue() -%}
    {{ return(fromyaml(pd_metric_catalogue_yaml())['metrics']) }}
{%- endmacro %}

{#- The aggregates.parquet columns of one catalogue entry: `name`, or `name_a` and `name_b`
    for a metric of each agent, or `name_<state>_<side>` for each state (one side's first). -#}
{% macro pd_metric_columns(entry) -%}
    {%- set columns = [] -%}
    {%- if not entry['per_agent'] -%}
        {%- do columns.append(entry['name']) -%}
    {%- else -%}
        {%- for side in ['a', 'b'] -%}
            {%- for state in entry.get('states', [none]) -%}
                {%- do columns.append(
                    entry['name'] ~ ('_' ~ state if state else '') ~ '_' ~ side
                ) -%}
            {%- endfor -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(columns) }}
{%- endmacro %}

{#- The columns of the catalogue's entries whose field `field` is one of `values`, in the
    catalogue's order. -#}
{% macro pd_metrics_where(field, values) -%}
    {%- set columns = [] -%}
    {%- for entry in pd_metric_catalogue() if entry[field] in values -%}
        {%- for column in pd_metric_columns(entry) -%}
            {%- do columns.append(column) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}

{#- The select items of agent_metrics.parquet for one side ('a' or 'b'), in the catalogue's
    `agent_columns` order: a metric of each agent under its name without the side
    (`<metric>_a as <metric>`), a column of the match as it is. -#}
{% macro pd_agent_metric_selects(side) -%}
    {%- set catalogue = fromyaml(pd_metric_catalogue_yaml()) -%}
    {%- set per_agent = {} -%}
    {%- for entry in catalogue['metrics'] if entry['per_agent'] -%}
        {%- do per_agent.update({entry['name']: entry}) -%}
    {%- endfor -%}
    {%- set selects = [] -%}
    {%- for name in catalogue['agent_columns'] -%}
        {%- if name not in per_agent -%}
            {%- do selects.append(name) -%}
        {%- else -%}
            {%- for state in per_agent[name].get('states', [none]) -%}
                {%- set column = name ~ ('_' ~ state if state else '') -%}
                {%- do selects.append(column ~ '_' ~ side ~ ' as ' ~ column) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(selects) }}
{%- endmacro %}

{#- The catalogue's rates (shares in [0, 1]) as columns of aggregates.parquet (`how` =
    'sided': `<metric>_a`, `<metric>_b`) or of agent_metrics.parquet ('agent': a metric of
    each agent without its side). -#}
{% macro pd_rate_columns(how) -%}
    {%- if how == 'sided' -%}
        {{ return(pd_metrics_where('is_rate', [true])) }}
    {%- endif -%}
    {%- set columns = [] -%}
    {%- for entry in pd_metric_catalogue() if entry['per_agent'] and entry['is_rate'] -%}
        {%- for state in entry.get('states', [none]) -%}
            {%- do columns.append(entry['name'] ~ ('_' ~ state if state else '')) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(columns) }}
{%- endmacro %}
