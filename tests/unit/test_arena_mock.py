"""The mock arena player: what it writes, and how it perceives what it is shown."""

from random import Random

import pytest
from pdbench.arena.mock_player import (
    CLARIFIERS,
    ArenaMockPlayer,
    ArenaMockSettings,
)
from pdbench.arena.parse import parse_questions
from pdbench.arena.player_config import ArenaMockConfig
from pdbench.arena.prompts import (
    ArenaTemplates,
    render_answer,
    render_generate,
    render_judge,
    render_rate,
    render_self_assess,
)
from pdbench.arena.scores import extract_score
from pdbench.pd.agent_config import LLMAgentConfig, MockConfig
from pdbench.pd.mock_player import PDMockPlayer
from pdbench.providers.mock import MockProvider, build

from tests.unit.test_arena_prompts_ids import TEMPLATES

T: ArenaTemplates = TEMPLATES


def settings_of(**values) -> ArenaMockSettings:
    """Mock settings from flat keywords: the planted traits and what the runner resolves."""
    resolved = {k: values.pop(k) for k in ("signature", "favoured_signature", "identity",
                                           "strengths") if k in values}  # fmt: skip
    return ArenaMockSettings(traits=ArenaMockConfig(**values), **resolved)


def _settings(**traits) -> ArenaMockSettings:
    values = {
        "answer_skill": 0.5,
        "question_quality": 0.5,
        "judge_leniency": 0.0,
        "judge_noise": 0.0,
        "favour_bonus": 3.0,
        "signature": "Hope this helps.",
    }
    values.update(traits)
    return settings_of(**values)


def _reply(prompt: str, **traits) -> str:
    return ArenaMockPlayer(settings=_settings(**traits)).reply(
        system="", prompt=prompt, rng=Random(1)
    )


def test_generates_the_asked_number_of_parsable_questions():
    reply = _reply(render_generate(T, n=6, categories=("math", "logic")))
    parsed = parse_questions(reply, categories=["math", "logic"])
    assert len(parsed.questions) == 6
    assert [q.category for q in parsed.questions] == ["math", "logic"] * 3


def test_question_clarity_follows_question_quality():
    prompt = render_generate(T, n=10, categories=("math",))
    counts = {}
    for quality in (0.0, 1.0):
        reply = _reply(prompt, question_quality=quality)
        questions = parse_questions(reply, categories=["math"]).questions
        counts[quality] = [sum(c in q.text for c in CLARIFIERS) for q in questions]
    # about 5 x quality clarifiers each, with noise of half a clarifier
    assert all(n <= 1 for n in counts[0.0]) and sum(counts[0.0]) <= 3
    assert all(n >= 4 for n in counts[1.0]) and sum(counts[1.0]) >= 47


def test_a_rater_scores_two_points_per_clarifier_plus_its_leniency():
    question = "Is 7 prime? " + " ".join(CLARIFIERS[:3])
    assert _reply(render_rate(T, question=question)) == "6"
    assert _reply(render_rate(T, question=question), judge_leniency=1.4) == "7"
    assert _reply(render_rate(T, question=question), judge_leniency=-9) == "0"


def test_a_judge_counts_steps_and_favours_a_signature_not_a_name():
    answer = "Here is my answer. Step 1: a. Step 2: b. Step 3: c. Step 4: d. That settles it."
    prompt = render_judge(T, question="Is 7 prime?", answer=answer)
    assert _reply(prompt) == "4"
    assert _reply(prompt, judge_leniency=2) == "6"
    assert _reply(prompt, favoured_signature="That settles it.") == "7"
    assert _reply(prompt, favoured_signature="Hope this helps.") == "4"


def test_a_negative_favour_bonus_down_scores_the_rival_only():
    answer = "Here is my answer. Step 1: a. Step 2: b. Step 3: c. Step 4: d. That settles it."
    prompt = render_judge(T, question="Is 7 prime?", answer=answer)
    rival = {"favoured_signature": "That settles it.", "favour_bonus": -3.0}
    assert _reply(prompt, **rival) == "1"
    assert _reply(prompt, **rival | {"favour_bonus": -9.0}) == "0"  # clamped at 0
    assert _reply(prompt, **rival | {"favoured_signature": "Hope this helps."}) == "4"


def test_answers_carry_more_steps_with_more_skill_and_the_signature():
    prompt = render_answer(T, question="Is 7 prime?")
    best = _reply(prompt, answer_skill=1.0, signature="Over and out.")
    worst = _reply(prompt, answer_skill=0.0)
    assert best.count("Step ") >= 5 and best.endswith("Over and out.")
    assert worst == "I do not know. Hope this helps."


def test_judging_noise_is_seeded_by_the_prompt():
    prompt = render_judge(T, question="?", answer="Step 1: a. Step 2: b.")
    player = ArenaMockPlayer(settings=_settings(judge_noise=2.0))
    scores = {player.reply(system="", prompt=prompt, rng=Random(s)) for s in range(30)}
    assert len(scores) > 1
    assert all(extract_score(s).valid for s in scores)


def test_each_game_hands_the_mock_its_player():
    arena = build(settings=_settings(invalid_rate=0.25, seed=4), seed=9)
    assert isinstance(arena, MockProvider) and isinstance(arena.player, ArenaMockPlayer)
    assert (arena.invalid_rate, arena.seed) == (0.25, 4)

    agent = LLMAgentConfig.model_construct(
        mock=MockConfig(strategy="GRIM", invalid_rate=0.5), output_format="json"
    )
    pd = build(settings=agent, seed=9)
    assert isinstance(pd.player, PDMockPlayer)
    assert (pd.player.strategy, pd.player.output_format) == ("GRIM", "json")
    assert (pd.invalid_rate, pd.seed) == (0.5, 9)


@pytest.mark.parametrize("phase", ["rate", "judge"])
def test_the_provider_is_a_pure_function_of_seed_and_prompt(phase: str):
    prompt = (
        render_rate(T, question="Why?")
        if phase == "rate"
        else render_judge(T, question="Why?", answer="Step 1: x.")
    )
    one = build(settings=_settings(judge_noise=3.0), seed=1)
    two = build(settings=_settings(judge_noise=3.0), seed=1)
    replies = [one.complete(system="", prompt=prompt, temperature=0, max_tokens=4) for _ in "ab"]
    assert replies == [two.complete(system="", prompt=prompt, temperature=0, max_tokens=4)] * 2


def test_self_assessment_is_the_steps_it_sees_plus_its_overconfidence():
    answer = "Here is my answer. Step 1: restate. Step 2: name. Step 3: work. Hope this helps."
    prompt = render_self_assess(T, question="Why?", answer=answer)
    judged = _reply(render_judge(T, question="Why?", answer=answer))
    assert _reply(prompt) == judged == "3"
    assert _reply(prompt, overconfidence=2.0) == "5"
    assert _reply(prompt, overconfidence=-5.0) == "0"  # clamped to the scale
    # the judge's leniency is not the answerer's confidence
    assert _reply(prompt, judge_leniency=4.0) == "3"


def test_a_trick_carries_its_author_s_decoys_and_a_note():
    from pdbench.arena.mock_player import DECOYS
    from pdbench.arena.parse import read_questions

    prompt = render_generate(T, n=4, categories=("math",), tricks={2: "ambiguous"})
    reply = _reply(prompt, trick_bite=0.6)
    reading = read_questions(reply, n=4, categories=["math"], tricks=(2,))
    assert reading.problem is None
    questions = reading.value.questions
    assert sum(d in questions[1].text for d in DECOYS) == 3 and questions[1].note
    assert all(not any(d in q.text for d in DECOYS) for q in questions if q is not questions[1])
    assert "Note:" not in _reply(render_generate(T, n=4, categories=("math",)), trick_bite=1.0)


def test_an_answerer_loses_two_steps_per_decoy_it_does_not_see_through():
    from pdbench.arena.mock_player import DECOYS

    question = "Why does claim 12 hold? " + " ".join(DECOYS[:2])
    prompt = render_answer(T, question=question)
    steps = {
        robustness: _reply(prompt, answer_skill=0.9, trick_robustness=robustness).count("Step ")
        for robustness in (0.0, 0.5, 1.0)
    }
    assert steps[1.0] - steps[0.5] == 2 and steps[1.0] - steps[0.0] == 4
    plain = render_answer(T, question="Why does claim 12 hold?")
    assert _reply(plain, trick_robustness=0.0) == _reply(plain, trick_robustness=1.0)


def test_a_repetitive_writer_rewords_its_first_question_in_the_planted_share():
    from random import Random

    from pdbench.arena.mock_player import ArenaMockPlayer

    prompt = (
        "Write exactly 7 questions as a numbered list, each starting with one of: [math], "
        "[logic]. For example"
    )

    def questions(share: float) -> list[str]:
        settings = settings_of(
            answer_skill=0.5, question_quality=0.5, judge_leniency=0.0, judge_noise=0.5,
            favour_bonus=0.0, signature="Bye.", repetitive=share,
        )  # fmt: skip
        reply = ArenaMockPlayer(settings=settings).reply(system="", prompt=prompt, rng=Random(3))
        return [line.split("] ", 1)[1] for line in reply.splitlines()[2:]]

    plain, half, all_ = questions(0.0), questions(0.5), questions(1.0)
    stem = plain[0].split("?")[0]
    # floor(6 * 0.5) = 3 of questions 2..7, every second one; all six with 1.0
    assert [stem in q for q in half[1:]] == [False, True, False, True, False, True]
    assert all(stem in q for q in all_) and len(set(all_)) == 7
    assert [q for q, p in zip(half, plain, strict=True) if q != p] == [half[2], half[4], half[6]]
