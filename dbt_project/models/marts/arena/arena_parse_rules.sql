{{ config(location=mart_location('arena_parse_rules.parquet')) }}

{{ parse_rule_counts('arena', ['phase', 'agent', 'provider', 'model']) }}
