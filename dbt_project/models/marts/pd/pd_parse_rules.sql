{{ config(location=mart_location('parse_rules.parquet')) }}

{{ parse_rule_counts('pd', ['condition', 'agent', 'provider', 'model']) }}
