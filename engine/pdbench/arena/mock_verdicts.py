"""The mock judge's Bradley-Terry verdicts: pairwise verdicts with planted, closed-form truths.

When every answerer of a tournament plants a ``strength`` (Elo scale), each mock judge is
handed the table of the answerers' signatures and strengths (it recognises an answer's author
by the sign-off the answer ends with, never by a name) and answers a pairwise prompt by four
seeded draws, in this order:

1. ``self_preference`` s: on a pair holding its own answer, with probability s it prefers
   its own answer;
2. ``name_preference`` n: shown the authors' names (the name arm), on a pair holding the
   player it favours, with probability n it prefers that player's answer;
3. ``first_preference`` f: with probability f it prefers the answer shown first;
4. otherwise, with probability ``tie_share`` t it answers ``A=B``, else it prefers the
   answer of strength s_a to one of s_b with probability 1 / (1 + 10^((s_b - s_a) / 400)),
   Bradley-Terry on the Elo scale, and says so strongly (``A>>B``, ``B>>A``) with probability
   ``strong_share`` g. A judge with ``length_preference`` l adds l per 100 words of the
   first answer's length over the second's to that probability's log-odds, and its
   log-odds preferences add theirs: ``first_log_odds`` to the answer shown first;
   ``self_log_odds``, on a pair holding its own answer, to its own answer (+ when it is
   shown first, - when second); ``name_log_odds``, shown the authors' names, on a pair
   holding the player it favours, to that player's answer (+ first, - second). These spend
   no draw: the first answer wins with probability 1 / (1 + (1 / p - 1) e^-L), L the sum
   of the terms.

Draws 1 to 3 give ``A>B`` or ``B>A``; with t = g = 0 (the default) so does 4, and no draw is
spent on ties or strength, so every mart's truth is a closed-form number. Over both orders
of a pair (a, b), with p = P(a beats b) as in 4 and no ties:

- a judge prefers the first-shown answer at the rate 0.5 + f / 2;
- it changes its preferred answer with the order (a flip) with probability
  (f + (1 - f) p) (f + (1 - f) (1 - p)) + (1 - f)^2 p (1 - p);
- its own answer a wins s + (1 - s) (f / 2 + (1 - f) p) of its verdicts, and
  f' / 2 + (1 - f') p of a peer's (first preference f'): with no first preference anywhere,
  a self bias of s (1 - p);
- named, the favoured player a wins n + (1 - n) (f / 2 + (1 - f) p) of its verdicts against
  f / 2 + (1 - f) p blind: a name bias of n (1 - f / 2 - (1 - f) p);
- with no judge preferring a position, a player's Bradley-Terry Elo is its planted strength
  minus the field's mean strength plus 1000.

With log-odds preferences instead (first, self, name; the mixtures at 0), P(first wins) on a
verdict the strengths decide is sigmoid(ln(10)/400 (s_a - s_b) + l Δwords/100 + first +
self (±1) + name (±1)), Δwords the first answer's words less the second's and each ±1 the
side the judge's own or favoured answer is shown on (0 off its pairs, or blind for name):
the form the joint model of pairwise judging fits. With equal strengths and lengths, a
first_log_odds of ln 3 makes the first answer win 3 / 4 of its verdicts.

With ties and strong verdicts (a tie half a win to each side, a strong verdict counting w =
``strong_weight`` verdicts, as the marts count), a pair's expected weighted share of wins for
a from a judge without preferences is ((1 - t) (1 + (w - 1) g) p + t / 2) / ((1 - t) (1 +
(w - 1) g) + t): ties pull it towards 1/2, strong verdicts push it back; the Elo truth is the
Bradley-Terry fit to those shares. A tie scores half in the bias arms, which count a strong
verdict as a plain one, so the first-position rate stays 0.5 + f / 2.

Each mart averages these over the pairs it counts (``docs/pairwise_judging.md``, "Planted
truth").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from random import Random

__all__ = ["bradley_terry_verdict", "elo_win_probability"]


def elo_win_probability(strength: float, other: float) -> float:
    """The probability that an answer of Elo ``strength`` is preferred to one of ``other``."""
    return 1 / (1 + 10 ** ((other - strength) / 400))


def _author(text: str, strengths: Mapping[str, float]) -> str | None:
    """The signature ``text`` carries (the longest, should one hold another)."""
    carried = [signature for signature in strengths if signature in text]
    return max(carried, key=len) if carried else None


def bradley_terry_verdict(
    *,
    shown: Mapping[str, tuple[str, str]],
    strengths: Mapping[str, float],
    signature: str,
    favoured_name: str | None,
    first_preference: float,
    self_preference: float,
    name_preference: float,
    rng: Random,
    tie_share: float = 0.0,
    strong_share: float = 0.0,
    length_preference: float = 0.0,
    first_log_odds: float = 0.0,
    self_log_odds: float = 0.0,
    name_log_odds: float = 0.0,
) -> str:
    """The verdict on the answers ``shown`` (label -> (author label, text)), drawn as the
    module says."""
    first, second = (_author(shown[label][1], strengths) for label in ("A", "B"))
    if first is None or second is None:
        return "I cannot tell whose answers these are."
    named = [shown[label][0].split(" (")[0] for label in ("A", "B")]
    first_wins: bool | None = None
    if signature in (first, second) and rng.random() < self_preference:
        first_wins = first == signature
    elif favoured_name in named and rng.random() < name_preference:
        first_wins = named[0] == favoured_name
    elif rng.random() < first_preference:
        first_wins = True
    elif tie_share and rng.random() < tie_share:
        return "A=B"
    else:
        p_first = elo_win_probability(strengths[first], strengths[second])
        if length_preference or first_log_odds or self_log_odds or name_log_odds:
            longer = (len(shown["A"][1].split()) - len(shown["B"][1].split())) / 100
            log_odds = length_preference * longer + first_log_odds
            if signature in (first, second):
                log_odds += self_log_odds if first == signature else -self_log_odds
            if favoured_name in named:
                log_odds += name_log_odds if named[0] == favoured_name else -name_log_odds
            p_first = 1 / (1 + (1 / p_first - 1) * math.exp(-log_odds))
        first_wins = rng.random() < p_first
        if strong_share and rng.random() < strong_share:
            return "A>>B" if first_wins else "B>>A"
    return "A>B" if first_wins else "B>A"
