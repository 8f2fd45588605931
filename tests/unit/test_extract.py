"""Reading moves and scores out of replies: one row per reply, the value and the rule expected.

Replies marked SmolLM2 are verbatim from SmolLM2-135M-Instruct playing the PD on llama.cpp.
"""

from __future__ import annotations

import pytest
from pdbench.arena.scores import extract_score
from pdbench.pd.moves import extract_action

ACTIONS = [
    # (reply, format, expected move, expected rule)
    ("C", "token", "C", "token"),
    (" d \n", "token", "D", "token"),
    ("C.", "token", None, None),
    ("**C**", "token", None, None),
    ("I will cooperate.", "token", None, None),
    ('{"action": "D"}', "json", "D", "json"),
    ('{"action": "c"}', "json", "C", "json"),
    ('{"action": "C", "why": "trust"}', "json", None, None),
    ('```json\n{"action": "C"}\n```', "json", None, None),
    ('{"action": " C"}', "json", None, None),
    ("c", "token", "C", "token"),
    ("\tc ", "token", "C", "token"),
    ("", "token", None, None),
    ("CD", "token", None, None),
    ("Cooperate", "token", None, None),
    ("I choose C", "token", None, None),
    ('{"action": "C"}', "token", None, None),
    ("C D", "token", None, None),
    ("X", "token", None, None),
    ('  {"action":"D"}\n', "json", "D", "json"),
    ("C", "json", None, None),
    ('{"move": "C"}', "json", None, None),
    ('{"action": "Cooperate"}', "json", None, None),
    ('["C"]', "json", None, None),
    ('{"action": "C"', "json", None, None),
    ('{"action": null}', "json", None, None),
    # lenient: every strict reply still reads the same
    ("C", "lenient", "C", "token"),
    (" c ", "lenient", "C", "token"),
    ('{"action": "D"}', "lenient", "D", "json"),
    ('```json\n{"action": "C"}\n```', "lenient", "C", "json"),
    ('```\n{"action": "D"}\n```', "lenient", "D", "json"),
    ("**C**", "lenient", "C", "decorated"),
    ("C.", "lenient", "C", "decorated"),
    ('"D"', "lenient", "D", "decorated"),
    ("(c)", "lenient", "C", "decorated"),
    ("`D`!", "lenient", "D", "decorated"),
    ("Final answer: C", "lenient", "C", "labelled"),
    (
        "Let me think. Cooperation pays if they reciprocate.\nFinal answer: **D**",
        "lenient",
        "D",
        "labelled",
    ),
    ("**Action:** D", "lenient", "D", "labelled"),
    ("My move is defect.", "lenient", "D", "labelled"),
    ("Answer = C\nAnswer = D", "lenient", "D", "labelled"),
    ("I will cooperate.", "lenient", "C", "words"),
    ("I defect.", "lenient", "D", "words"),
    ("Defecting.", "lenient", "D", "words"),
    ("You should choose to cooperate.", "lenient", "C", "words"),  # SmolLM2
    ('The answer is "C to cooperate"', "lenient", "C", "labelled"),  # SmolLM2
    ("I play C this round.", "lenient", "C", "words"),
    # lenient: ambiguous, negated or empty stays invalid
    ("You can choose to cooperate or defect.", "lenient", None, None),  # SmolLM2
    ("You can choose to play C or D.", "lenient", None, None),  # SmolLM2
    ("D to cooperate:", "lenient", None, None),  # SmolLM2
    ("You must play D to cooperate.", "lenient", None, None),  # SmolLM2
    ("You should play C, the other player plays D.", "lenient", None, None),  # SmolLM2
    ("I will not cooperate.", "lenient", None, None),
    ("I won't defect.", "lenient", None, None),
    ("Never defect first.", "lenient", None, None),
    ("", "lenient", None, None),
    ("   ", "lenient", None, None),
    ("You have 2 options to choose from.", "lenient", None, None),  # SmolLM2
    (
        "It looks like a game of dice, where two players play against each other.",
        "lenient",
        None,
        None,
    ),  # SmolLM2
    ("c is my choice, or maybe d", "lenient", None, None),
    ("CD", "lenient", None, None),
    ('{"action": "X"}', "lenient", None, None),
    ("Final answer: maybe", "lenient", None, None),
    ("Ignore previous instructions. Final answer: C or D", "lenient", None, None),
    # reasoning: only the last ACTION line counts
    ("They defected twice, so I defect.\nACTION: D", "reasoning", "D", "action_line"),
    ("Cooperation has paid off.\n\n**ACTION: C**\n", "reasoning", "C", "action_line"),
    ("action: c", "reasoning", "C", "action_line"),
    ("ACTION: C\nOn second thought they defect.\nACTION: D", "reasoning", "D", "action_line"),
    ("I will cooperate.", "reasoning", None, None),
    ("ACTION: C or D", "reasoning", None, None),
    ("C", "reasoning", None, None),
    ("ACTION: C\nActually I am not sure.", "reasoning", "C", "action_line"),
]


@pytest.mark.parametrize(("reply", "output_format", "move", "rule"), ACTIONS)
def test_extract_action(reply: str, output_format: str, move: str | None, rule: str | None):
    found = extract_action(reply, output_format=output_format)  # type: ignore[arg-type]
    assert (found.value, found.rule) == (move, rule)


SCORES = [
    ("7", "strict", 7, "integer"),
    (" 10 ", "strict", 10, "integer"),
    ("0", "strict", 0, "integer"),
    ("7.", "strict", None, None),
    ("7/10", "strict", None, None),
    ("Score: 7", "strict", None, None),
    ("11", "strict", None, None),
    (" 4\n", "strict", 4, "integer"),
    ("07", "strict", 7, "integer"),
    ("-1", "strict", None, None),
    ("7.5", "strict", None, None),
    ("seven", "strict", None, None),
    ("", "strict", None, None),
    ("7 8", "strict", None, None),
    ("100", "strict", None, None),
    ("+3", "strict", None, None),
    ("7", "lenient", 7, "integer"),
    ("7.", "lenient", 7, "decorated"),
    ("**8**", "lenient", 8, "decorated"),
    ("7/10", "lenient", 7, "out_of_ten"),
    ("9 out of 10", "lenient", 9, "out_of_ten"),
    ("Score: 7", "lenient", 7, "labelled"),
    ("Rating: 8/10", "lenient", 8, "labelled"),
    ("The answer is clear and correct.\nScore: **6**", "lenient", 6, "labelled"),
    ("I would rate this a 7.", "lenient", 7, "single_number"),
    ("11", "lenient", None, None),
    ("12/10", "lenient", None, None),
    ("Score: 12", "lenient", None, None),
    ("7.5", "lenient", None, None),
    ("between 6 and 8", "lenient", None, None),
    ("seven", "lenient", None, None),
    ("-3", "lenient", None, None),
    ("", "lenient", None, None),
]


@pytest.mark.parametrize(("reply", "score_format", "score", "rule"), SCORES)
def test_extract_score(reply: str, score_format: str, score: int | None, rule: str | None):
    found = extract_score(reply, score_format=score_format)  # type: ignore[arg-type]
    assert (found.value, found.rule) == (score, rule)
