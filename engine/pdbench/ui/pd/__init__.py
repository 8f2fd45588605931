"""The viewer's Prisoner's Dilemma pages: match, condition, all conditions, tournament,
strategies, evolution and provider calls, and the readers and charts they share."""
