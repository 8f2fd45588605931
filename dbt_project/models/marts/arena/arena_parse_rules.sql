{{ config(location=mart_location()) }}

{{ parse_rule_counts('arena', ['phase', 'agent', 'provider', 'model']) }}
