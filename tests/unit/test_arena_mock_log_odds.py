"""The Bradley-Terry mock's log-odds preferences: ``first_log_odds``, ``self_log_odds`` and
``name_log_odds`` add to the log-odds of the first answer winning when the strengths decide
a verdict, as ``length_preference`` does, and spend no draw of their own."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from random import Random

import pytest
from pdbench.arena.mock_player import ArenaMockPlayer
from pdbench.arena.mock_verdicts import bradley_terry_verdict
from pdbench.arena.prompts import render_pairwise
from pdbench.errors import ConfigError
from pdbench.games import load_config

from tests.conftest import write_arena
from tests.unit.test_arena_mock import settings_of
from tests.unit.test_arena_mock_verdicts import STRENGTHS
from tests.unit.test_arena_pairwise import TEMPLATE

LN3 = math.log(3)
"""Log-odds of 3 to 1: alone on equal strengths, the first answer wins 3 / 4."""
AUTHORS = ("atlas (mock-arena)", "gale (mock-arena)")
"""The name arm's labels: the author's name, then its model in brackets."""


class _Stream(Random):
    """A random stream that returns ``values`` in turn, then the last one, and counts its
    draws."""

    def __init__(self, values: Sequence[float]) -> None:
        super().__init__(0)
        self.values = list(values)
        self.draws = 0

    def random(self) -> float:
        value = self.values[min(self.draws, len(self.values) - 1)]
        self.draws += 1
        return value


def _shown(first: str, second: str, *, authors=("", "")) -> dict[str, tuple[str, str]]:
    """Two answers of the same length (so no length term), ``first`` shown as A."""
    return {
        "A": (authors[0], f"Here is my answer. {first}"),
        "B": (authors[1], f"Here is my answer. {second}"),
    }


EVEN = {"Hope this helps.": 1000.0, "Over and out.": 1000.0, "That settles it.": 1000.0}
"""Equal strengths: without preferences, every verdict the strengths decide is a coin."""


def _verdict(shown, u, *, strengths=EVEN, rng=None, **traits) -> str:
    judge = {"signature": "That settles it.", "favoured_name": None, "first_preference": 0.0,
             "self_preference": 0.0, "name_preference": 0.0} | traits  # fmt: skip
    return bradley_terry_verdict(shown=shown, strengths=strengths, rng=rng or _Stream([u]), **judge)


def test_the_closed_form_by_hand():
    # 1 / (1 + (1 / p - 1) e^-L) is sigmoid(logit p + L): with p = 1 / 2 and L = ln 3, 3 / 4
    assert 1 / (1 + (1 / 0.5 - 1) * math.exp(-LN3)) == pytest.approx(0.75, abs=1e-12)
    assert 1 / (1 + (1 / 0.5 - 1) * math.exp(LN3)) == pytest.approx(0.25, abs=1e-12)


def test_a_first_log_odds_of_ln_3_makes_the_first_answer_win_three_in_four():
    shown = _shown("Hope this helps.", "Over and out.")
    assert _verdict(shown, 0.7499, first_log_odds=LN3) == "A>B"
    assert _verdict(shown, 0.7501, first_log_odds=LN3) == "B>A"
    # negative: the second answer is preferred, the first winning 1 / 4
    assert _verdict(shown, 0.2499, first_log_odds=-LN3) == "A>B"
    assert _verdict(shown, 0.2501, first_log_odds=-LN3) == "B>A"
    # none: a half
    assert _verdict(shown, 0.4999) == "A>B"
    assert _verdict(shown, 0.5001) == "B>A"


def test_the_first_log_odds_adds_to_the_strengths_log_odds():
    # 1200 against 1000: logit p = ln(10) / 2, odds 3.162278; plus ln 3, odds 9.486833 and
    # P(first) = 9.486833 / 10.486833 = 1 / (1 + 10^-0.5 / 3)
    shown = _shown("Hope this helps.", "Short and sweet.")
    p = 1 / (1 + 10**-0.5 / 3)
    assert p == pytest.approx(0.904642, abs=1e-6)
    assert p == pytest.approx(1 / (1 + math.exp(-(math.log(10) / 400 * 200 + LN3))))
    assert _verdict(shown, p - 1e-4, strengths=STRENGTHS, first_log_odds=LN3) == "A>B"
    assert _verdict(shown, p + 1e-4, strengths=STRENGTHS, first_log_odds=LN3) == "B>A"


def test_a_self_log_odds_favours_the_judge_s_own_answer_on_either_side():
    # the judge signs "That settles it."; its own answer second: the first wins 1 / 4
    own_second = _shown("Hope this helps.", "That settles it.")
    assert _verdict(own_second, 0.2499, self_log_odds=LN3) == "A>B"
    assert _verdict(own_second, 0.2501, self_log_odds=LN3) == "B>A"
    # its own answer first: 3 / 4
    own_first = _shown("That settles it.", "Hope this helps.")
    assert _verdict(own_first, 0.7499, self_log_odds=LN3) == "A>B"
    assert _verdict(own_first, 0.7501, self_log_odds=LN3) == "B>A"
    # a pair without its answer: no effect
    others = _shown("Hope this helps.", "Over and out.")
    assert _verdict(others, 0.4999, self_log_odds=LN3) == "A>B"
    assert _verdict(others, 0.5001, self_log_odds=LN3) == "B>A"


def test_a_name_log_odds_acts_on_named_showings_only():
    named = _shown("Hope this helps.", "Over and out.", authors=AUTHORS)
    # the favoured player's label first: 3 / 4
    assert _verdict(named, 0.7499, favoured_name="atlas", name_log_odds=LN3) == "A>B"
    assert _verdict(named, 0.7501, favoured_name="atlas", name_log_odds=LN3) == "B>A"
    # second: 1 / 4
    assert _verdict(named, 0.2499, favoured_name="gale", name_log_odds=LN3) == "A>B"
    assert _verdict(named, 0.2501, favoured_name="gale", name_log_odds=LN3) == "B>A"
    # a player not shown: no effect
    assert _verdict(named, 0.4999, favoured_name="ember", name_log_odds=LN3) == "A>B"
    assert _verdict(named, 0.5001, favoured_name="ember", name_log_odds=LN3) == "B>A"
    # blind, the same answers: it has no name to go by
    blind = _shown("Hope this helps.", "Over and out.")
    assert _verdict(blind, 0.4999, favoured_name="atlas", name_log_odds=LN3) == "A>B"
    assert _verdict(blind, 0.5001, favoured_name="atlas", name_log_odds=LN3) == "B>A"


def test_the_terms_add_up():
    # own answer second (-ln 3) against the first position (+ln 3): a half
    own_second = _shown("Hope this helps.", "That settles it.", authors=AUTHORS)
    traits = {"first_log_odds": LN3, "self_log_odds": LN3}
    assert _verdict(own_second, 0.4999, **traits) == "A>B"
    assert _verdict(own_second, 0.5001, **traits) == "B>A"
    # and the favoured atlas first (+ln 3): 3 / 4 again
    traits |= {"favoured_name": "atlas", "name_log_odds": LN3}
    assert _verdict(own_second, 0.7499, **traits) == "A>B"
    assert _verdict(own_second, 0.7501, **traits) == "B>A"


def test_the_mixture_draws_come_first_and_no_draw_is_added():
    # its own answer first, gale (favoured) second, every mixture at a half
    shown = _shown("That settles it.", "Hope this helps.", authors=AUTHORS)
    mixtures = {"self_preference": 0.5, "favoured_name": "gale", "name_preference": 0.5,
                "first_preference": 0.5}  # fmt: skip
    # log-odds ln 3 (first) - 1 (own answer first, self -1) - 2 (gale second, name 2) < 0:
    # the first answer wins with probability sigmoid(ln 3 - 3) = 0.130, under a half
    log_odds = {"first_log_odds": LN3, "self_log_odds": -1.0, "name_log_odds": 2.0}
    assert 1 / (1 + math.exp(-(LN3 - 3))) == pytest.approx(0.130, abs=1e-3)
    for extra, expected in (({}, "A>B"), (log_odds, "B>A")):
        # the self draw decides: its own answer, shown first, whatever the log-odds
        stream = _Stream([0.4])
        assert _verdict(shown, 0, rng=stream, **mixtures, **extra) == "A>B"
        assert stream.draws == 1
        # no mixture acts: three draws missed, the fourth (0.45) against the strengths,
        # a half without log-odds, 0.130 with them
        stream = _Stream([0.6, 0.6, 0.6, 0.45])
        assert _verdict(shown, 0, rng=stream, **mixtures, **extra) == expected
        assert stream.draws == 4


def test_zero_log_odds_leave_seeded_verdicts_unchanged():
    shown = _shown("Hope this helps.", "Short and sweet.", authors=AUTHORS)
    judge = {"favoured_name": "gale", "first_preference": 0.2, "name_preference": 0.3,
             "tie_share": 0.1, "strong_share": 0.2, "length_preference": 0.5}  # fmt: skip
    for k in range(300):
        plain = _verdict(shown, 0, strengths=STRENGTHS, rng=Random(k), **judge)
        zeros = _verdict(shown, 0, strengths=STRENGTHS, rng=Random(k), **judge,
                         first_log_odds=0.0, self_log_odds=0.0, name_log_odds=0.0)  # fmt: skip
        assert plain == zeros, k


def test_seeded_verdicts_match_three_in_four():
    # 4,000 seeded draws of a first answer winning at 3 / 4: standard error
    # sqrt(0.75 * 0.25 / 4000) = 0.00685, so 0.0274 is four of them
    shown = _shown("Hope this helps.", "Over and out.")
    wins = sum(_verdict(shown, 0, rng=Random(k), first_log_odds=LN3) == "A>B" for k in range(4000))
    assert wins / 4000 == pytest.approx(0.75, abs=4 * math.sqrt(0.75 * 0.25 / 4000))


def test_the_mock_player_passes_the_log_odds_to_its_verdicts():
    settings = settings_of(
        signature="That settles it.",
        favours="atlas",
        strengths=tuple(EVEN.items()),
        first_log_odds=LN3,
        self_log_odds=LN3,
        name_log_odds=LN3,
    )
    player = ArenaMockPlayer(settings=settings)

    def reply(first: str, second: str, u: float, authors=None) -> str:
        prompt = render_pairwise(
            TEMPLATE, question="Why?", first=first, second=second, authors=authors
        )
        return player.reply(system="", prompt=prompt, rng=_Stream([u]))

    # blind, a pair without its answer: only the first position, 3 / 4
    assert reply("One. Hope this helps.", "Two. Over and out.", 0.7499) == "A>B"
    assert reply("One. Hope this helps.", "Two. Over and out.", 0.7501) == "B>A"
    # its own answer second (-ln 3) and named atlas first (+ln 3) on top: 3 / 4 again
    own = ("One. Hope this helps.", "Two. That settles it.")
    assert reply(*own, 0.7499, authors=AUTHORS) == "A>B"
    assert reply(*own, 0.7501, authors=AUTHORS) == "B>A"
    # blind, the same pair: the position and the self terms cancel, a half
    assert reply(*own, 0.4999) == "A>B"
    assert reply(*own, 0.5001) == "B>A"


def _players(*mocks: dict) -> list[dict]:
    return [
        {"ref": "agents/arena_player.yaml", "overrides": {"name": f"p{i}", "mock": mock}}
        for i, mock in enumerate(mocks)
    ]


@pytest.mark.parametrize("trait", ["first_log_odds", "self_log_odds", "name_log_odds"])
def test_a_log_odds_preference_without_strengths_is_one_line(project: Path, trait):
    with pytest.raises(ConfigError) as info:
        load_config(write_arena(project / "configs", players=_players({}, {trait: 0.7}, {})))
    message = str(info.value)
    assert f"players[1].mock.{trait}: takes effect only when every answerer plants" in message
    assert "\n" not in message


def test_log_odds_preferences_are_recorded_only_where_planted(project: Path):
    players = _players(
        {"strength": 1100, "first_log_odds": 0.7},
        {"strength": 900, "self_log_odds": -0.4, "name_log_odds": 1.2},
        {"strength": 1000},
    )
    config = load_config(write_arena(project / "configs", players=players)).config
    truths = [player.truth() for player in config.players]
    assert truths[0]["first_log_odds"] == 0.7 and "self_log_odds" not in truths[0]
    assert (truths[1]["self_log_odds"], truths[1]["name_log_odds"]) == (-0.4, 1.2)
    assert not {"first_log_odds", "self_log_odds", "name_log_odds"} & set(truths[2])
    # out of bounds: a log-odds of 5 at most
    with pytest.raises(ConfigError):
        load_config(write_arena(project / "configs", players=_players(
            {"strength": 1000, "first_log_odds": 5.5}, {"strength": 1000}, {"strength": 1000}
        )))  # fmt: skip
