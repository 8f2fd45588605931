"""The mock plants style: an answerer's ``answer_words`` (its answers' mean length, each drawn
around it with filler that holds no worked step) and a Bradley-Terry judge's
``length_preference`` (log-odds per 100 words of the first answer's length over the
second's)."""

from __future__ import annotations

import math
import statistics
from random import Random

import pytest
from pdbench.arena.mock_player import ArenaMockPlayer
from pdbench.arena.mock_verdicts import bradley_terry_verdict
from pdbench.arena.prompts import render_answer

from tests.unit.test_arena_mock import T, _settings


class _Fixed(Random):
    """A random stream whose every draw is ``u``."""

    def __init__(self, u: float) -> None:
        super().__init__(0)
        self.u = u

    def random(self) -> float:
        return self.u


def _verdict(first_words: int, second_words: int, u: float, preference: float) -> str:
    shown = {
        "A": ("", " ".join(["Short and sweet."] + ["word"] * (first_words - 3))),
        "B": ("", " ".join(["Over and out."] + ["word"] * (second_words - 3))),
    }
    return bradley_terry_verdict(
        shown=shown,
        strengths={"Short and sweet.": 1000.0, "Over and out.": 1000.0},
        signature="Hope this helps.",
        favoured_name=None,
        first_preference=0.0,
        self_preference=0.0,
        name_preference=0.0,
        length_preference=preference,
        rng=_Fixed(u),
    )


def test_a_length_preference_adds_its_log_odds_per_100_words():
    # equal strengths, the first answer 100 words longer, 0.8 per 100 words:
    # P(first) = 1 / (1 + exp(-0.8)) = 0.689974; a draw u prefers the first when u < P
    assert 1 / (1 + math.exp(-0.8)) == pytest.approx(0.689974, abs=1e-6)
    assert _verdict(200, 100, u=0.6899, preference=0.8) == "A>B"
    assert _verdict(200, 100, u=0.6901, preference=0.8) == "B>A"
    # the other way round, 1 - 0.689974 = 0.310026
    assert _verdict(100, 200, u=0.3100, preference=0.8) == "A>B"
    assert _verdict(100, 200, u=0.3101, preference=0.8) == "B>A"
    # no preference: a half
    assert _verdict(200, 100, u=0.4999, preference=0.0) == "A>B"
    assert _verdict(200, 100, u=0.5001, preference=0.0) == "B>A"


def _answers(**traits) -> list[str]:
    player = ArenaMockPlayer(settings=_settings(**traits))
    return [
        player.reply(system="", prompt=render_answer(T, question=f"Is {n} prime?"), rng=Random(n))
        for n in range(200)
    ]


def test_planted_answer_words_set_the_mean_length_and_leave_the_steps():
    plain, padded = _answers(), _answers(answer_words=150.0)
    lengths = [len(answer.split()) for answer in padded]
    # 200 draws of N(150, 37.5): the mean within 4 standard errors (2.65 words) of 150
    assert statistics.mean(lengths) == pytest.approx(150, abs=11)
    assert statistics.stdev(lengths) > 20  # lengths vary within the player
    for before, after in zip(plain, padded, strict=True):
        assert [w for w in before.split() if w.startswith("Step")] == [
            w for w in after.split() if w.startswith("Step")
        ]
        # the planted answer is the plain one, filler inserted before the sign-off
        assert after.startswith(before.removesuffix(" Hope this helps."))
        assert after.endswith("Hope this helps.")
