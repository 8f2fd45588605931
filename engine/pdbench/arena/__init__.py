"""Humanity's Last Arena: players write questions, rate them, answer and judge, all blind.

The engine only plays the tournament and writes its raw events (``questions.jsonl``,
``question_ratings.jsonl``, ``answers.jsonl``, ``judgments.jsonl``, ``calls.jsonl``); every
score is a dbt model. Modules:

- ``records``: the contracts of the records it writes, and their file names;
- ``config``: the ``game: arena`` config file (players, categories, limits, scoring choices);
- ``prompts``: the four prompt templates and the output instructions the parsers expect;
- ``parse``: numbered question lists and 0..10 scores;
- ``ids``: opaque question and answer ids, per-rater presentation order;
- ``tasks``: one call task, asked until its reply parses;
- ``phases``: the tasks of each phase and the records their outcomes become;
- ``players``: the players behind the shared provider gateway and runtime, one client per
  thread;
- ``filter``: the kept questions, read from the dbt question-quality model;
- ``plan``: the calls per phase, tokens and cost (``--dry-run``);
- ``resume``: which phases of a stopped tournament are kept (``--resume``);
- ``runner``: the tournament into a run directory, each phase's calls concurrently.
- ``series``: finished tournaments gathered into a series (``pdbench leaderboard``,
  defined in ``cli_commands``).
"""
