"""The Bradley-Terry mock (``strength`` and the closed-form preferences): its verdicts are
drawn at the planted probabilities, the runner hands every judge the strengths, and a config
that plants them half-way is one line."""

from __future__ import annotations

from pathlib import Path
from random import Random

import pytest
from pdbench.arena.mock_verdicts import bradley_terry_verdict, elo_win_probability
from pdbench.arena.players import mock_settings
from pdbench.errors import ConfigError
from pdbench.games import load_config

from tests.conftest import write_arena

STRENGTHS = {"Hope this helps.": 1200.0, "Short and sweet.": 1000.0, "Over and out.": 800.0}
NEUTRAL = {"signature": "Over and out.", "favoured_name": None, "first_preference": 0.0,
           "self_preference": 0.0, "name_preference": 0.0}  # fmt: skip


def _shown(first: str, second: str, *, authors=("", "")) -> dict[str, tuple[str, str]]:
    return {
        "A": (authors[0], f"Here is my answer. Step 1: restate. {first}"),
        "B": (authors[1], f"Here is my answer. {second}"),
    }


def _share_first(shown, draws: int = 4000, **traits) -> float:
    """The share of ``draws`` seeded verdicts preferring the first answer."""
    judge = NEUTRAL | traits
    wins = sum(
        bradley_terry_verdict(shown=shown, strengths=STRENGTHS, rng=Random(k), **judge) == "A>B"
        for k in range(draws)
    )
    return wins / draws


def test_the_elo_probability_by_hand():
    # 200 Elo points: 1 / (1 + 10^-0.5) = 1 / 1.316228; 400 points: 1 / 1.1
    assert elo_win_probability(1200, 1000) == pytest.approx(0.759747, abs=1e-6)
    assert elo_win_probability(800, 1200) == pytest.approx(1 / 11)
    assert elo_win_probability(1000, 1000) == 0.5


def test_blind_verdicts_follow_the_planted_strengths():
    # 4,000 draws: a binomial standard error under 0.008, so 0.03 is about four of them
    shown = _shown("Hope this helps.", "Short and sweet.")
    assert _share_first(shown) == pytest.approx(0.759747, abs=0.03)
    reversed_ = _shown("Short and sweet.", "Hope this helps.")
    assert _share_first(reversed_) == pytest.approx(0.240253, abs=0.03)


def test_a_first_preference_adds_its_share_to_the_first_answer():
    # f + (1 - f) p with f = 0.6 and p = 0.240253: 0.6 + 0.4 * 0.240253 = 0.696101
    shown = _shown("Short and sweet.", "Hope this helps.")
    assert _share_first(shown, first_preference=0.6) == pytest.approx(0.696101, abs=0.03)


def test_certain_preferences_decide_the_verdict():
    weak_first = _shown("Over and out.", "Hope this helps.")
    assert _share_first(weak_first, draws=200, self_preference=1.0) == 1.0
    weaker_first = _shown("Short and sweet.", "Hope this helps.")
    assert _share_first(weaker_first, draws=200, first_preference=1.0) == 1.0
    named = _shown("Hope this helps.", "Short and sweet.", authors=("atlas (m)", "gale (m)"))
    assert _share_first(named, draws=200, favoured_name="gale", name_preference=1.0) == 0.0
    blind = _shown("Hope this helps.", "Short and sweet.")
    # blind, the name preference has nothing to go by: the strengths decide
    assert _share_first(blind, favoured_name="gale", name_preference=1.0) == pytest.approx(
        0.759747, abs=0.03
    )


def test_a_self_preference_does_not_act_on_pairs_without_the_judge():
    shown = _shown("Hope this helps.", "Short and sweet.")
    assert _share_first(shown, self_preference=1.0) == pytest.approx(0.759747, abs=0.03)


def _verdicts(shown, draws: int = 4000, **traits) -> dict[str, float]:
    """The share of each verdict over ``draws`` seeded verdicts."""
    judge = NEUTRAL | traits
    replies = [
        bradley_terry_verdict(shown=shown, strengths=STRENGTHS, rng=Random(k), **judge)
        for k in range(draws)
    ]
    return {reply: replies.count(reply) / draws for reply in set(replies)}


def test_a_tie_share_turns_that_share_of_the_strength_draws_into_ties():
    shown = _shown("Hope this helps.", "Short and sweet.")
    shares = _verdicts(shown, tie_share=0.3)
    assert set(shares) == {"A>B", "A=B", "B>A"}
    # ties at 0.3; the rest split by the strengths: 0.7 * 0.759747 = 0.531823
    assert shares["A=B"] == pytest.approx(0.3, abs=0.03)
    assert shares["A>B"] == pytest.approx(0.531823, abs=0.03)
    assert _verdicts(shown, draws=200, tie_share=1.0) == {"A=B": 1.0}


def test_a_strong_share_makes_that_share_of_the_decided_verdicts_strong():
    shown = _shown("Hope this helps.", "Short and sweet.")
    shares = _verdicts(shown, strong_share=0.5, tie_share=0.2)
    # A>>B: 0.8 * 0.759747 * 0.5 = 0.303899; B>>A: 0.8 * 0.240253 * 0.5 = 0.096101
    assert shares["A>>B"] == pytest.approx(0.303899, abs=0.03)
    assert shares["A>B"] == pytest.approx(0.303899, abs=0.03)
    assert shares["B>>A"] == pytest.approx(0.096101, abs=0.02)
    assert shares["A=B"] == pytest.approx(0.2, abs=0.03)
    strong = _verdicts(shown, draws=200, strong_share=1.0)
    assert set(strong) == {"A>>B", "B>>A"}


def test_a_preference_acts_before_ties_and_strong_verdicts():
    shown = _shown("Short and sweet.", "Hope this helps.")
    assert _verdicts(shown, draws=200, first_preference=1.0, tie_share=1.0) == {"A>B": 1.0}
    assert _verdicts(shown, draws=200, first_preference=1.0, strong_share=1.0) == {"A>B": 1.0}


def test_without_ties_or_strong_verdicts_the_draws_are_unchanged():
    # a share of 0 spends no draw: the first draw is the first preference's, the second the
    # strengths', as before ties and strong verdicts existed
    shown = _shown("Hope this helps.", "Short and sweet.")
    for k in range(200):
        stream = Random(k)
        stream.random()
        expected = "A>B" if stream.random() < 0.759747 else "B>A"
        reply = bradley_terry_verdict(
            shown=shown, strengths=STRENGTHS, rng=Random(k), tie_share=0.0, strong_share=0.0,
            **NEUTRAL,
        )  # fmt: skip
        assert reply == expected, k


def test_an_answer_without_a_planted_signature_gets_no_verdict():
    reply = bradley_terry_verdict(
        shown=_shown("Unknown sign-off.", "Over and out."), strengths=STRENGTHS, rng=Random(1),
        **NEUTRAL,
    )  # fmt: skip
    assert reply not in {"A>B", "B>A", "A=B", "A>>B", "B>>A"}


def _players(*mocks: dict) -> list[dict]:
    return [
        {"ref": "agents/arena_player.yaml", "overrides": {"name": f"p{i}", "mock": mock}}
        for i, mock in enumerate(mocks)
    ]


def test_the_runner_hands_every_judge_the_signatures_and_strengths(project: Path):
    players = _players(
        {"strength": 1100}, {"strength": 900, "first_preference": 0.3}, {"strength": 1000}
    )
    config = load_config(write_arena(project / "configs", players=players)).config
    settings = mock_settings(config, 1)
    assert settings.strengths == (
        ("Hope this helps.", 1100),
        ("That settles it.", 900),
        ("Happy to expand on any step.", 1000),
    )
    assert settings.traits.first_preference == 0.3
    assert (settings.traits.tie_share, settings.traits.strong_share) == (0.0, 0.0)
    assert mock_settings(config, 0).strengths == settings.strengths


def test_without_strengths_the_judge_counts_steps_as_before(project: Path):
    config = load_config(write_arena(project / "configs", players=3)).config
    assert mock_settings(config, 0).strengths == ()
    assert "strength" not in config.players[0].truth()


@pytest.mark.parametrize(
    ("mocks", "message"),
    [
        (({"strength": 1100}, {}, {"strength": 900}),
         "players[1].mock.strength: missing; when one answerer plants a strength"),
        (({}, {"self_preference": 0.4}, {}),
         "players[1].mock.self_preference: takes effect only when every answerer plants"),
        (({}, {}, {"tie_share": 0.2}),
         "players[2].mock.tie_share: takes effect only when every answerer plants"),
    ],
)  # fmt: skip
def test_strengths_planted_half_way_are_one_line(project: Path, mocks, message):
    with pytest.raises(ConfigError) as info:
        load_config(write_arena(project / "configs", players=_players(*mocks)))
    assert message in str(info.value) and "\n" not in str(info.value)
