"""The read-only viewer of a run directory."""
