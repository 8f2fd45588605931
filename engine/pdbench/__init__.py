"""pdbench: LLM agents and classic policies playing games, measured in SQL."""
