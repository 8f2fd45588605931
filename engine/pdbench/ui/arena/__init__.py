"""The viewer's Humanity's Last Arena pages: leaderboard, judges, questions, pairwise verdicts,
calibration, tricks, diversity, budgets, provider calls and a series of tournaments."""
