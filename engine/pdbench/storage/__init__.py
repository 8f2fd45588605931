"""What a run directory holds (schema) and how its marts are built (aggregate)."""
