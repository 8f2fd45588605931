{#- The data tests declared in the models' YAML (not_null, unique, accepted_values,
    expression_is_true, ...), run as one query: dbt pays about 50 ms of its own per test node
    whatever its SQL, and a run of the PD demo had about 100 of them. The YAML tests of
    the pd, arena and series models carry the tag `gathered` (dbt_project.yml); `pdbench
    aggregate` leaves them out of its build and runs instead, per game, one singular test
    (tests/assert_<game>_checks_hold.sql), and one per content tag (a run without that content
    leaves the models out, and their test with them), that call this macro. It renders, with
    the test's own macro and arguments, every `gathered` test on a model that this build
    selected, that is upstream of the calling test (its refs name the last marts) and, with
    `content_tag`, that carries that tag, counts each
    one's failing rows, and fails with the first failing check, ordered from staging to marts,
    named as dbt names its test node: "<test name> (<model>): N failing rows".
    Tests of severity warn are not gathered (they never fail a build): they run, with every
    other test as its own node, under `pdbench aggregate --unit-tests`. -#}
{% macro gathered_checks(content_tag=none) -%}
{%- set checks = [] -%}
{%- if execute -%}
    {%- set upstream = gathered_upstream(model.depends_on.nodes) -%}
    {%- for node in graph.nodes.values() | sort(attribute='unique_id') -%}
        {%- if node.resource_type == 'test' and node.test_metadata
            and 'gathered' in node.tags and node.config.severity | lower != 'warn'
            and node.attached_node in upstream and node.attached_node in selected_resources
            and (content_tag is none or content_tag in graph.nodes[node.attached_node].tags) -%}
            {%- set layer = ['staging', 'intermediate', 'marts'].index(node.fqn[1]) if node.fqn[1] in ['staging', 'intermediate', 'marts'] else 3 -%}
            {%- do checks.append((layer, node.name, node)) -%}
        {%- endif -%}
    {%- endfor -%}
{%- endif %}
with

checks as (
    select
        null::integer as ordinal,
        null::varchar as problem
    where false
    {%- for layer, name, node in checks | sort %}
    {%- set attached = graph.nodes[node.attached_node] %}
    union all
    select
        {{ loop.index }} as ordinal,
        '{{ node.name }} ({{ attached.name }}): ' || count(*) || ' failing rows' as problem
    from ({{ gathered_check_sql(node, attached) }}) as failing
    having count(*) > 0
    {%- endfor %}
),

first_problem as (
    select problem
    from checks
    order by ordinal
    limit 1
)

select problem
from first_problem
where {{ fail_with('problem') }}
{%- endmacro %}


{#- The unique_ids of the models `nodes` name and of every model upstream of them. -#}
{% macro gathered_upstream(nodes) -%}
    {%- set seen = [] -%}
    {%- set queue = nodes | list -%}
    {%- for _ in range(20000) if queue -%}
        {%- set current = queue.pop() -%}
        {%- if current not in seen and current in graph.nodes -%}
            {%- do seen.append(current) -%}
            {%- do queue.extend(graph.nodes[current].depends_on.nodes) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if queue -%}
        {{ exceptions.raise_compiler_error('gathered_upstream: the models upstream of ' ~ nodes ~ ' were not all walked') }}
    {%- endif -%}
    {{ return(seen) }}
{%- endmacro %}


{#- The SQL of one YAML test: its macro, with its arguments, on the model's relation. -#}
{% macro gathered_check_sql(node, attached) -%}
    {%- set arguments = {} -%}
    {%- for key, value in node.test_metadata.kwargs.items() if key != 'model' -%}
        {%- if value is string and value.startswith("ref('") -%}
            {%- set value = gathered_relation(graph.nodes['model.' ~ project_name ~ '.' ~ value[5:-2]]) -%}
        {%- endif -%}
        {%- do arguments.update({key: value}) -%}
    {%- endfor -%}
    {%- set test_macro = context['test_' ~ node.test_metadata.name] -%}
    {{ test_macro(model=gathered_relation(attached), **arguments) }}
{%- endmacro %}


{#- A model's relation, as ref() gives it (the gathered test cannot ref() a model it does
    not declare). -#}
{% macro gathered_relation(node) -%}
    {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias)) }}
{%- endmacro %}
