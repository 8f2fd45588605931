"""The life of a run, the same for every game: its directory and manifest, the provider
runtime it shares, work on threads, and what it will cost."""
