{{ config(location=mart_location()) }}

{{ parse_rule_counts('pd', ['condition', 'agent', 'provider', 'model']) }}
