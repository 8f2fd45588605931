"""Golden tests of the rendered prompts (expected text written by hand from the templates)."""

import re
from pathlib import Path

import pytest
from pdbench.pd.actions import C, D, Turn
from pdbench.pd.agents.prompts import (
    ROUND_PLACEHOLDERS,
    SYSTEM_PLACEHOLDERS,
    PromptTemplates,
    correction_prompt,
    render_round,
    render_system,
    template_problem,
)
from pdbench.pd.payoff import PayoffMatrix

from tests.conftest import CONFIGS

CLASSIC = PayoffMatrix(cc=(3, 3), cd=(0, 5), dc=(5, 0), dd=(1, 1))
TOKEN = "Reply with exactly one letter: C to cooperate or D to defect. Output nothing else."


def _templates(persona: str | None = "tit_for_tat") -> PromptTemplates:
    return PromptTemplates.from_files(
        system_path=CONFIGS / "prompts/pd_system.md",
        round_path=CONFIGS / "prompts/pd_round.md",
        persona_path=CONFIGS / f"prompts/personas/{persona}.md" if persona else None,
    )


GOLDEN_SYSTEM = """\
You are playing a repeated game against one other player. In every round, both of you choose \
at the same time between two actions, C (cooperate) and D (defect), without seeing the other \
player's choice for that round. Points are awarded each round as follows:

- You play C, the other player plays C: you get 3, they get 3.
- You play C, the other player plays D: you get 0, they get 5.
- You play D, the other player plays C: you get 5, they get 0.
- You play D, the other player plays D: you get 1, they get 1.

You do not know in advance how many rounds the game will last. Your goal is to earn as many \
points as you can over the whole game.

Your approach: you cooperate in the first round, and from then on you do whatever the other \
player did in the previous round.

Reply with exactly one letter: C to cooperate or D to defect. Output nothing else."""


GOLDEN_ROUND = """\
Round 4.

Your total so far: 4. The other player's total so far: 9.

The last 2 rounds, oldest first:
Round 2: you played C, the other player played D; you got 0, they got 5.
Round 3: you played D, the other player played D; you got 1, they got 1.

Choose your action for round 4. Reply with exactly one letter: C to cooperate or D to defect. \
Output nothing else."""

HISTORY = [Turn(C, C, 3, 3), Turn(C, D, 0, 5), Turn(D, D, 1, 1)]


def test_golden_system_prompt():
    rendered = render_system(_templates(), matrix=CLASSIC, side="agent_a", output_format="token")
    assert rendered == GOLDEN_SYSTEM


def test_golden_round_prompt_shows_exactly_the_window():
    rendered = render_round(
        _templates(),
        round_index=4,
        turns=HISTORY[-2:],
        history_window=2,
        include_totals=True,
        own_total=4,
        opponent_total=9,
        output_format="token",
    )
    assert rendered == GOLDEN_ROUND


def test_first_round_without_totals_and_in_json():
    rendered = render_round(
        _templates(),
        round_index=1,
        turns=[],
        history_window=5,
        include_totals=False,
        own_total=0,
        opponent_total=0,
        output_format="json",
    )
    assert rendered == (
        "Round 1.\n\n"
        "No rounds have been played yet.\n\n"
        "Choose your action for round 1. Reply with exactly one JSON object and nothing else: "
        '{"action": "C"} to cooperate or {"action": "D"} to defect.'
    )


def test_window_zero_says_no_history_is_shown():
    rendered = render_round(
        _templates(),
        round_index=7,
        turns=[],
        history_window=0,
        include_totals=True,
        own_total=1.5,
        opponent_total=0,
        output_format="token",
    )
    assert rendered == (
        "Round 7.\n\n"
        "Your total so far: 1.5. The other player's total so far: 0.\n\n"
        "You are not shown any previous rounds.\n\n"
        f"Choose your action for round 7. {TOKEN}"
    )


def test_no_persona_leaves_no_gap():
    rendered = render_system(
        _templates(persona=None), matrix=CLASSIC, side="agent_a", output_format="token"
    )
    assert "\n\n\n" not in rendered
    assert "whole game.\n\nReply with exactly one letter" in rendered


def test_agent_b_is_told_its_own_side_of_an_asymmetric_matrix():
    lopsided = PayoffMatrix(cc=(3, 2), cd=(0, 6), dc=(5, -1), dd=(1, 0.5))
    rendered = render_system(_templates(), matrix=lopsided, side="agent_b", output_format="token")
    lines = re.findall(r"^- You play .*$", rendered, flags=re.MULTILINE)
    assert lines == [
        "- You play C, the other player plays C: you get 2, they get 3.",
        "- You play C, the other player plays D: you get -1, they get 5.",
        "- You play D, the other player plays C: you get 6, they get 0.",
        "- You play D, the other player plays D: you get 0.5, they get 1.",
    ]


def test_correction_repeats_the_round_prompt():
    assert correction_prompt("Round 2.") == "Your previous reply was not a valid move.\n\nRound 2."


def test_template_problems():
    assert template_problem("Round {round_index}. {history}", ROUND_PLACEHOLDERS) is None
    problem = template_problem("Round {round} {history}", ROUND_PLACEHOLDERS)
    assert problem is not None and problem.startswith("unknown placeholder {round}")
    assert "template syntax" in template_problem("a { b", SYSTEM_PLACEHOLDERS)


def test_shipped_templates_use_known_placeholders():
    prompts = Path(CONFIGS / "prompts")
    assert template_problem((prompts / "pd_system.md").read_text(), SYSTEM_PLACEHOLDERS) is None
    assert template_problem((prompts / "pd_round.md").read_text(), ROUND_PLACEHOLDERS) is None
    assert {p.stem for p in (prompts / "personas").glob("*.md")} == {
        "cooperative",
        "exploitative",
        "tit_for_tat",
        "grim_trigger",
        "generous_tft",
        "wsls",
    }


@pytest.mark.parametrize(
    ("template", "problem"),
    [
        ("{persona:d}", "placeholder {persona:d}: format specs and conversions are not allowed"),
        ("{persona!z}", "placeholder {persona!z}: format specs and conversions are not allowed"),
        ("{persona!r}", "placeholder {persona!r}: format specs and conversions are not allowed"),
        ("{persona:>9999999999}", "placeholder {persona:>9999999999}: format specs"),
        ("{persona.upper}", "placeholder {persona.upper}: only named placeholders"),
        ("{persona[0]}", "placeholder {persona[0]}: only named placeholders"),
        ("{}", "placeholder {}: only named placeholders"),
        ("{0}", "placeholder {0}: only named placeholders"),
    ],
)
def test_format_specs_conversions_and_positional_fields_are_refused(template, problem):
    found = template_problem(f"Rules. {template} {{payoff_table}}", SYSTEM_PLACEHOLDERS)
    assert found is not None and found.startswith(problem)
