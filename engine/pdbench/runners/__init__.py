"""Playing an experiment: agents built by name, matches scheduled and recorded."""
