"""The arena's prompts (rendering, phase detection) and its opaque ids and orders."""

import re
from pathlib import Path

from pdbench.arena.ids import answer_id, presentation_order, question_id
from pdbench.arena.prompts import (
    PHASES,
    ArenaTemplates,
    phase_of_prompt,
    phase_template_problem,
    render_answer,
    render_generate,
    render_judge,
    render_rate,
    render_self_assess,
)

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = ArenaTemplates.from_files(
    root=REPO / "configs",
    paths={p: f"prompts/arena/{p}.md" for p in PHASES},
)


def test_generate_names_n_and_every_category():
    prompt = render_generate(TEMPLATES, n=7, categories=("math", "ethics"))
    assert "Generate 7 diverse" in prompt
    assert "categories: math, ethics." in prompt
    assert "Write exactly 7 questions as a numbered list" in prompt
    assert "one of: [math], [ethics]. For example: 1. [math] ..." in prompt
    assert phase_of_prompt(prompt) == "generate"


def test_the_meta_category_is_explained_only_when_listed():
    listed = render_generate(TEMPLATES, n=3, categories=("math", "Meta"))
    assert "A [meta] question is about this tournament itself" in listed
    assert phase_of_prompt(listed) == "generate"
    unlisted = render_generate(TEMPLATES, n=3, categories=("math", "metaphysics"))
    assert "[meta]" not in unlisted


def test_self_assess_shows_the_question_and_the_players_own_answer():
    prompt = render_self_assess(TEMPLATES, question="Is 7 prime?", answer="  Yes.  ")
    assert "Question: Is 7 prime?\n\nYour answer: Yes.\n\n" in prompt
    assert "the score you expect the judges to give your answer" in prompt
    assert phase_of_prompt(prompt) == "self_assess"
    judge = render_judge(TEMPLATES, question="Is 7 prime?", answer="Yes.")
    assert phase_of_prompt(judge) == "judge"


def test_rate_answer_and_judge_show_only_texts():
    rate = render_rate(TEMPLATES, question="Is 7 prime?")
    answer = render_answer(TEMPLATES, question="Is 7 prime?")
    judge = render_judge(TEMPLATES, question="Is 7 prime?", answer="  Yes.  ")
    assert "Question: Is 7 prime?" in rate
    assert "Question: Is 7 prime?" in answer
    assert "Question: Is 7 prime?\n\nAnswer: Yes.\n\n" in judge
    assert [phase_of_prompt(p) for p in (rate, answer, judge)] == ["rate", "answer", "judge"]
    assert phase_of_prompt("What is the weather?") is None


def test_an_empty_answer_is_shown_as_no_answer():
    assert "Answer: (no answer)" in render_judge(TEMPLATES, question="?", answer=" ")


def test_a_question_with_braces_is_not_a_placeholder():
    assert "Question: What is {x}?" in render_rate(TEMPLATES, question="What is {x}?")


def test_template_problems():
    assert phase_template_problem("{question} {output_instruction}", phase="rate") is None
    assert phase_template_problem("{question}", phase="rate") == (
        "missing placeholder {output_instruction}"
    )
    assert phase_template_problem("{question} {answer} {output_instruction}", phase="rate") == (
        "unknown placeholder {answer} (known: {output_instruction}, {question})"
    )
    assert phase_template_problem("{question", phase="rate").startswith("template syntax: ")


def test_ids_are_opaque_and_stable():
    first = question_id(seed=1, author="atlas", position=1)
    assert re.fullmatch(r"q_[0-9a-f]{10}", first)
    assert first == question_id(seed=1, author="atlas", position=1)
    assert "atlas" not in first
    others = {
        question_id(seed=2, author="atlas", position=1),
        question_id(seed=1, author="borealis", position=1),
        question_id(seed=1, author="atlas", position=2),
    }
    assert first not in others and len(others) == 3
    answer = answer_id(seed=1, question_id=first, answerer="atlas")
    assert re.fullmatch(r"a_[0-9a-f]{10}", answer)
    assert answer != answer_id(seed=1, question_id=first, answerer="borealis")


def test_each_player_sees_its_own_order():
    items = [f"q_{i:010x}" for i in range(20)]
    order_a = presentation_order(items, seed=5, phase="rate", player="atlas")
    order_b = presentation_order(items, seed=5, phase="rate", player="borealis")
    assert sorted(order_a) == sorted(order_b) == items
    assert order_a != order_b
    assert order_a != items
    # depends on the items, not on the order they come in
    assert presentation_order(items[::-1], seed=5, phase="rate", player="atlas") == order_a
    assert presentation_order(items, seed=5, phase="judge", player="atlas") != order_a
