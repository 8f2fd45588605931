"""Trick slots, the generation instruction and rubrics, and reading notes."""

from __future__ import annotations

from pdbench.arena.parse import parse_questions, read_questions
from pdbench.arena.prompts import Trick, phase_of_prompt, render_judge, render_rate
from pdbench.arena.tricks import TricksConfig, trick_instruction, trick_slots

from tests.unit.test_arena_prompts_ids import TEMPLATES


def test_the_slots_are_seeded_by_player_and_sized_by_the_share():
    tricks = TricksConfig(share=0.34, kinds=["ambiguous", "misleading"])
    slots = trick_slots(seed=5, player="ada", n=9, tricks=tricks)
    assert len(slots) == 3 and set(slots.values()) <= {"ambiguous", "misleading"}
    assert all(1 <= p <= 9 for p in slots) and list(slots) == sorted(slots)
    assert trick_slots(seed=5, player="ada", n=9, tricks=tricks) == slots
    others = [trick_slots(seed=5, player=f"p{i}", n=9, tricks=tricks) for i in range(6)]
    assert any(list(o) != list(slots) for o in others)
    assert trick_slots(seed=5, player="ada", n=9, tricks=TricksConfig()) == {}
    assert len(trick_slots(seed=5, player="ada", n=3, tricks=TricksConfig(share=1))) == 3


def test_the_instruction_names_each_trick_and_asks_for_notes():
    text = trick_instruction({2: "false_premise", 4: "unanswerable"})
    assert text.startswith("Questions 2 and 4 are trick questions")
    assert "question 2 must rest on a false premise" in text
    assert "question 4 must be unanswerable" in text and '"Note:"' in text
    assert trick_instruction({3: "ambiguous"}).startswith("Question 3 is a trick question,")
    assert trick_instruction({}) == ""


def test_a_trick_s_rubric_goes_to_raters_and_judges_only_when_it_is_a_trick():
    trick = Trick(kind="false_premise", note="There is no such theorem")
    rate = render_rate(TEMPLATES, question="Why is 7 even?", trick=trick)
    judge = render_judge(TEMPLATES, question="Why is 7 even?", answer="It is not.", trick=trick)
    for prompt in (rate, judge):
        assert "deliberate trick (a false premise)" in prompt
        assert "There is no such theorem." in prompt
    assert phase_of_prompt(rate) == "rate" and phase_of_prompt(judge) == "judge"
    assert "trick" not in render_rate(TEMPLATES, question="Why is 7 odd?")
    bare = render_judge(TEMPLATES, question="q", answer="a", trick=Trick("ambiguous", None))
    assert "(subtly ambiguous)" in bare and "Judge whether the answer handles the trick." in bare


def test_a_note_belongs_to_the_question_line_right_before_it():
    reply = "\n".join(
        [
            "1. [math] Why is 7 even?",
            "Note: it is odd; say so.",
            "Note: a second note is skipped",
            "2. [math] What is 2 + 2?",
            "",
            "- **Note:** blank lines between are fine",
            "Preamble",
            "Note: after a non-question line, skipped",
            "3. [math] Why is 7 even?",
            "Note: after a duplicate, skipped",
        ]
    )
    parsed = parse_questions(reply, categories=["math"])
    assert [q.note for q in parsed.questions] == [
        "it is odd; say so.",
        "blank lines between are fine",
    ]
    assert "Note: a second note is skipped" in parsed.skipped
    assert "Note: after a non-question line, skipped" in parsed.skipped
    assert "Note: after a duplicate, skipped" in parsed.skipped


def test_a_note_on_the_question_s_own_line_is_its_note_and_cut_from_its_text():
    # as SmolLM2-135M writes a note: inline, in parentheses, after the question
    reply = (
        "1. [math]Question 2 - why is 1/0 = 5? (Note: no such value; say so)\n"
        "2. [logic] Is every swan white? **Note:** ambiguous on purpose\n"
        "3. [logic] Explain the keynote: a speech?\n"
        "4. [math] Note: nothing before it"
    )
    parsed = parse_questions(reply, categories=["math", "logic"])
    assert [(q.text, q.note) for q in parsed.questions] == [
        ("Question 2 - why is 1/0 = 5?", "no such value; say so"),
        ("Is every swan white?", "ambiguous on purpose"),
        ("Explain the keynote: a speech?", None),  # "keynote:" is not a note
        ("Note: nothing before it", None),
    ]
    assert parsed.questions[0].raw_line == reply.splitlines()[0]  # kept as written
    assert read_questions(reply, n=4, categories=["math", "logic"], tricks=(1, 2)).problem is None


def test_a_trick_without_its_note_is_re_asked_and_ranked_lower():
    noted = "1. [math] a?\nNote: n\n2. [math] b?"
    missing = "1. [math] a?\n2. [math] b?\nNote: on the wrong one"
    good = read_questions(noted, n=2, categories=["math"], tricks=(1,))
    bad = read_questions(missing, n=2, categories=["math"], tricks=(1,))
    assert good.problem is None and good.rank == 2
    assert bad.problem is not None and "Trick question 1 had no note" in bad.problem
    assert bad.rank == 1
    short = read_questions("1. [math] a?", n=2, categories=["math"], tricks=(1, 2))
    assert (
        "1 usable questions; 2 are needed" in short.problem and "Trick question 1 " in short.problem
    )
    assert read_questions(missing, n=2, categories=["math"]).problem is None


def _demo_context():
    from pathlib import Path

    from pdbench.arena.context import PhaseContext
    from pdbench.arena.prompts import ArenaTemplates
    from pdbench.games import load_config

    loaded = load_config(Path(__file__).resolve().parents[2] / "configs" / "arena.yaml")
    templates = ArenaTemplates.from_files(root=loaded.root, paths=loaded.config.prompts.paths())
    return PhaseContext(config=loaded.config, templates=templates)


def test_a_note_that_names_a_player_leaks_with_its_question_and_is_scrubbed():
    context = _demo_context()  # identity_leaks: scrub
    fields = context.leak_fields("Why is 7 even?", note="atlas knows 7 is odd.")
    assert fields["leaked_identities"] == ["atlas"] and fields["shown_text"] == "Why is 7 even?"
    question = {"trick_kind": "false_premise", "trick_note": "atlas knows 7 is odd."}
    shown = context.shown_trick(question)
    assert shown is not None and "atlas" not in shown.note and "[redacted]" in shown.note
    assert context.shown_trick({"trick_kind": None, "trick_note": None}) is None


def test_each_player_is_asked_for_its_own_trick_slots():
    from pdbench.arena.phases import generate_tasks

    context = _demo_context()
    tasks = generate_tasks(context)
    for task in tasks:
        slots = context.trick_slots(task.player)
        assert len(slots) == 2 and trick_instruction(slots) in task.prompt
    assert len({task.prompt for task in tasks}) > 1
