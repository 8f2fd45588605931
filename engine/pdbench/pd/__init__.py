"""The iterated Prisoner's Dilemma: its config, agents, play and what it writes.

The engine plays every condition x replicate and writes ``rounds.jsonl``, ``matches.jsonl``
and ``calls.jsonl`` (the contracts of its own in :mod:`pdbench.pd.records`); every metric is
a dbt model. :class:`pdbench.pd.game.PDGame` is the PD
as a game; the module map is in ``docs/architecture.md``.
"""
