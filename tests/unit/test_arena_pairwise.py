"""Pairwise judging before anything is played: reading verdicts, the pairing schemes
(pairs counted by hand), the config's checks, the dry run's counts and the mock's verdicts."""

from pathlib import Path
from random import Random

import pytest
from pdbench.arena.mock_player import STEPS, ArenaMockPlayer
from pdbench.arena.pairing import PairShowing, pair_id, question_pairs, showings
from pdbench.arena.pairwise_config import PairingConfig
from pdbench.arena.phases import VERDICT_PROBLEM, read_verdict
from pdbench.arena.plan import pairwise_calls, plan_calls
from pdbench.arena.prompts import phase_of_prompt, render_pairwise
from pdbench.arena.verdicts import extract_verdict
from pdbench.errors import ConfigError
from pdbench.games import load_config

from tests.conftest import CONFIGS, write_arena
from tests.unit.test_arena_mock import settings_of

AUTHORS = ["a", "b", "c", "d"]
JUDGES = ["a", "b", "c", "d", "r"]
"""Four answerers who also judge, and a judge-only referee r."""
TEMPLATE = (CONFIGS / "prompts/arena/pairwise.md").read_text(encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# verdicts


@pytest.mark.parametrize(
    ("reply", "strict", "lenient"),
    [
        ("A>B", ("A>B", "verdict"), ("A>B", "verdict")),
        ("  B>>A\n", ("B>>A", "verdict"), ("B>>A", "verdict")),
        ("A=B", ("A=B", "verdict"), ("A=B", "verdict")),
        ("[[A>>B]]", (None, None), ("A>>B", "decorated")),
        ("**B > A**.", (None, None), ("B>A", "decorated")),
        ("Both are fine.\nMy final verdict is: [[B>A]]", (None, None), ("B>A", "labelled")),
        ("I would say A>B here.", (None, None), ("A>B", "single_verdict")),
        ("A>B, or maybe B>A", (None, None), (None, None)),
        ("A>>>B", (None, None), (None, None)),
        ("B>B", (None, None), (None, None)),
        ("7", (None, None), (None, None)),
        ("", (None, None), (None, None)),
    ],
)
def test_a_verdict_is_read_by_a_named_rule_or_not_at_all(reply, strict, lenient):
    found = extract_verdict(reply)
    assert (found.value, found.rule) == strict
    found = extract_verdict(reply, score_format="lenient")
    assert (found.value, found.rule) == lenient


def test_an_unreadable_verdict_is_re_asked_with_the_scale():
    reading = read_verdict("A is better")
    assert reading.value is None and reading.problem == VERDICT_PROBLEM
    assert "A>>B, A>B, A=B, B>A, B>>A" in VERDICT_PROBLEM
    assert read_verdict("A>B").rule == "verdict"


# ---------------------------------------------------------------------------------------------
# pairing


def _showings(**pairing) -> list[PairShowing]:
    config = PairingConfig(**pairing)
    return list(showings("q_1", AUTHORS, judges=JUDGES, pairing=config, seed=5))


def test_all_pairs_each_judged_by_every_judge_who_wrote_neither():
    pairs = question_pairs("q_1", AUTHORS, pairing=PairingConfig(), seed=5)
    assert pairs == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    found = _showings()
    # 6 pairs, each judged by 5 - 2 = 3 judges
    assert len(found) == 18
    for showing in found:
        assert showing.judge not in (showing.first, showing.second)
        assert (showing.order_index, showing.is_named) == (0, False)
    judged_ab = {s.judge for s in found if {s.first, s.second} == {"a", "b"}}
    assert judged_ab == {"c", "d", "r"}


def test_the_reference_scheme_pairs_every_answer_with_the_reference_s():
    pairs = question_pairs(
        "q_1", AUTHORS, pairing=PairingConfig(scheme="reference", reference="c"), seed=5
    )
    assert pairs == [("c", "a"), ("c", "b"), ("c", "d")]
    # 3 pairs x 3 judges
    assert len(_showings(scheme="reference", reference="c")) == 9
    # no reference answer to the question: no pair
    assert (
        question_pairs(
            "q_1", ["a", "b"], pairing=PairingConfig(scheme="reference", reference="c"), seed=5
        )
        == []
    )


def test_a_sample_draws_its_budget_of_pairs_per_question_seeded():
    every = question_pairs("q_1", AUTHORS, pairing=PairingConfig(), seed=5)
    sample = PairingConfig(scheme="sample", pairs_per_question=2)
    drawn = question_pairs("q_1", AUTHORS, pairing=sample, seed=5)
    assert len(drawn) == 2 and set(drawn) <= set(every)
    assert drawn == sorted(drawn, key=every.index)  # kept in the order of all pairs
    assert drawn == question_pairs("q_1", AUTHORS, pairing=sample, seed=5)
    draws = {tuple(question_pairs(f"q_{i}", AUTHORS, pairing=sample, seed=5)) for i in range(20)}
    assert len(draws) > 1  # the draw depends on the question
    big = PairingConfig(scheme="sample", pairs_per_question=9)
    assert question_pairs("q_1", AUTHORS, pairing=big, seed=5) == every
    assert len(_showings(scheme="sample", pairs_per_question=2)) == 6  # 2 pairs x 3 judges


def test_a_swap_asks_each_pair_again_in_the_other_order():
    found = _showings(position_swap=True)
    assert len(found) == 36
    first, second = found[0], found[1]
    assert (first.order_index, second.order_index) == (0, 1)
    assert (second.first, second.second, second.judge) == (first.second, first.first, first.judge)
    # the first order is a seeded coin per pair and judge: both orders come first somewhere
    firsts = {s.first for s in found if s.order_index == 0 and {s.first, s.second} == {"a", "b"}}
    assert len(_showings()) == 18 and firsts <= {"a", "b"}
    shown_first = [s.first == min(s.first, s.second) for s in found if s.order_index == 0]
    assert 0 < sum(shown_first) < len(shown_first)


def test_the_self_and_name_arms_add_their_showings():
    # self arm: every pair by all 5 judges
    assert len(_showings(self_judging=True)) == 30
    named = _showings(reveal_names=True)
    assert len(named) == 36
    assert sum(s.is_named for s in named) == 18
    # all three: 6 pairs x 5 judges x 2 orders x 2 (blind, named)
    assert len(_showings(self_judging=True, position_swap=True, reveal_names=True)) == 120


def test_both_orders_of_a_pair_share_its_id():
    assert pair_id("q_1", "b", "a") == pair_id("q_1", "a", "b") == "q_1:a|b"


# ---------------------------------------------------------------------------------------------
# the config and the dry run


def _config(project: Path, **fields):
    return load_config(write_arena(project / "configs", **fields)).config


def test_judging_is_absolute_by_default_and_plans_no_pairwise_call(project: Path):
    config = _config(project)
    assert config.judging == "absolute"
    assert "pairwise" not in [p.phase for p in plan_calls(config)]


def test_the_dry_run_counts_pairwise_calls_by_hand(project: Path):
    # 4 players, 3 questions each: 12 questions; 6 pairs per question, 2 judges per pair
    config = _config(project, judging="both", pairing={"position_swap": True})
    plan = {p.phase: p.calls for p in plan_calls(config)}
    assert plan["pairwise"] == 12 * 6 * 2 * 2
    assert plan["judge"] == 12 * 4 * 3
    assert sum(pairwise_calls(config).values()) == plan["pairwise"]
    # each player judges the 3 pairs that hold neither of its answers, twice, per question
    assert set(pairwise_calls(config).values()) == {12 * 3 * 2}
    reference = _config(
        project, judging="pairwise", pairing={"scheme": "reference", "reference": "p0"}
    )
    plan = {p.phase: p.calls for p in plan_calls(reference)}
    assert plan == {"generate": 4, "rate": 36, "answer": 48, "pairwise": 12 * 3 * 2}
    sample = _config(
        project, judging="pairwise", pairing={"scheme": "sample", "pairs_per_question": 2}
    )
    counted = {p.phase: p.calls for p in plan_calls(sample)}["pairwise"]
    assert counted == 12 * 2 * 2


@pytest.mark.parametrize(
    ("pairing", "message"),
    [
        ({"scheme": "reference"}, "pairing.reference: scheme reference needs"),
        ({"scheme": "reference", "reference": "nobody"}, "unknown player who answers 'nobody'"),
        ({"scheme": "sample"}, "pairing.pairs_per_question: scheme sample needs a budget"),
        ({"pairs_per_question": 3}, "only scheme sample takes a budget"),
        ({"prompt": "prompts/arena/missing.md"}, "prompt file not found: prompts/arena/missing.md"),
    ],
)
def test_a_pairing_that_does_not_fit_is_one_line(project: Path, pairing, message):
    path = write_arena(project / "configs", judging="pairwise", pairing=pairing)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_template_without_both_answers_is_refused(project: Path):
    (project / "configs/prompts/arena/one.md").write_text(
        "{question} {first_answer} {output_instruction}"
    )
    path = write_arena(
        project / "configs", judging="both", pairing={"prompt": "prompts/arena/one.md"}
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert "second_answer" in str(info.value)


# ---------------------------------------------------------------------------------------------
# the prompt and the mock


def _answer(steps: int, signature: str) -> str:
    return " ".join(
        [
            "Here is my answer.",
            *(f"Step {i}: {STEPS[i - 1]}." for i in range(1, steps + 1)),
            signature,
        ]
    )


def _verdict(first: str, second: str, *, authors=None, **traits) -> str:
    settings = {"answer_skill": 0.5, "question_quality": 0.5, "judge_leniency": 2.0,
                "judge_noise": 0.0, "favour_bonus": 0.0, "signature": "Over and out."}  # fmt: skip
    player = ArenaMockPlayer(settings=settings_of(**(settings | traits)))
    prompt = render_pairwise(TEMPLATE, question="Why?", first=first, second=second, authors=authors)
    assert phase_of_prompt(prompt) == "pairwise"
    return player.reply(system="", prompt=prompt, rng=Random(3))


def test_the_prompt_shows_two_anonymous_answers_or_their_authors():
    blind = render_pairwise(TEMPLATE, question="Why?", first="one", second="two")
    assert "[The Start of Assistant A's Answer]\none\n[The End of Assistant A's Answer]" in blind
    assert "[The Start of Assistant B's Answer]\ntwo\n" in blind
    named = render_pairwise(TEMPLATE, question="Why?", first="one", second="two",
                            authors=("atlas (mock-arena)", "gale (gpt-4o)"))  # fmt: skip
    assert "[The Start of Assistant B's Answer, written by gale (gpt-4o)]" in named


def test_the_mock_prefers_the_answer_with_more_steps_by_margin():
    # differences of steps: 6 strong, 2 plain, 0 a tie (leniency cancels)
    assert _verdict(_answer(8, "Hope this helps."), _answer(2, "Short and sweet.")) == "A>>B"
    assert _verdict(_answer(3, "Hope this helps."), _answer(5, "Short and sweet.")) == "B>A"
    assert _verdict(_answer(4, "Hope this helps."), _answer(4, "Short and sweet.")) == "A=B"


def test_the_mock_s_planted_position_self_and_name_bonuses():
    even = (_answer(4, "Hope this helps."), _answer(4, "Short and sweet."))
    assert _verdict(*even, first_bonus=2.0) == "A>B"
    assert _verdict(*even[::-1], first_bonus=2.0) == "A>B"  # a flip when swapped
    own = (_answer(4, "Hope this helps."), _answer(4, "Over and out."))
    assert _verdict(*own, self_bonus=3.5) == "B>>A"
    authors = ("atlas (mock-arena)", "gale (mock-arena)")
    assert _verdict(*even, favours="gale", name_bonus=2.0) == "A=B"  # blind: no name seen
    assert _verdict(*even, authors=authors, favours="gale", name_bonus=2.0) == "B>A"
