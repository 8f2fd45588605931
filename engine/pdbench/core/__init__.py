"""The game itself: actions, payoffs, horizons, transcripts, parsing, seeded streams."""
