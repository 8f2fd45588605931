"""The text an agent is shown about the game, and its exact inverse.

Two kinds of lines are written here and nowhere else, so that whatever renders a prompt and
whatever reads one back (the mock provider) agree by construction:

- payoff-table lines: ``- You play C, the other player plays D: you get 0, they get 5.``
- history lines: ``Round 3: you played C, the other player played D; you got 0, they got 5.``
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice

from pdbench.pd.actions import Action, Turn
from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.pd.payoff import PayoffMatrix, PayoffView

__all__ = [
    "format_number",
    "last_rounds",
    "parse_history",
    "parse_labels",
    "parse_payoff_table",
    "render_history",
    "render_payoff_table",
    "render_totals",
]

_NUMBER = r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
_LABEL = r"([^\s,;:]+)"
"""An action label as the lines write it (``C``, ``J``): no space, comma, colon or
semicolon."""
_TABLE_LINE = (
    "- You play {own}, the other player plays {opp}: you get {own_pay}, they get {opp_pay}."
)
_TABLE_RE = re.compile(
    rf"^- You play {_LABEL}, the other player plays {_LABEL}: you get {_NUMBER}, "
    rf"they get {_NUMBER}\.$",
    re.MULTILINE,
)
_HISTORY_LINE = (
    "Round {round_index}: you played {own}, the other player played {opp}; "
    "you got {own_pay}, they got {opp_pay}."
)
_HISTORY_RE = re.compile(
    rf"^Round (\d+): you played {_LABEL}, the other player played {_LABEL}; "
    rf"you got {_NUMBER}, they got {_NUMBER}\.$",
    re.MULTILINE,
)


def format_number(x: float) -> str:
    """A payoff as people write it: ``3``, ``0.5``, ``-1``."""
    return f"{x:g}"


def render_payoff_table(
    matrix: PayoffMatrix, side: str, labels: ActionLabels = DEFAULT_LABELS
) -> str:
    """The four outcomes from ``side``'s point of view, one line each (C/C, C/D, D/C, D/D),
    the actions in ``labels``."""
    lines = []
    for own in ("C", "D"):
        for opp in ("C", "D"):
            if side == "agent_a":
                own_pay, opp_pay = matrix.score(Action(own), Action(opp))
            else:
                opp_pay, own_pay = matrix.score(Action(opp), Action(own))
            lines.append(
                _TABLE_LINE.format(
                    own=labels.label(own),
                    opp=labels.label(opp),
                    own_pay=format_number(own_pay),
                    opp_pay=format_number(opp_pay),
                )
            )
    return "\n".join(lines)


def parse_labels(text: str) -> ActionLabels:
    """The action labels of a rendered payoff table (its first line is C/C, its third D/C);
    ``C``/``D`` when there is no whole table."""
    lines = list(_TABLE_RE.finditer(text))
    if len(lines) != 4 or lines[0][1] == lines[2][1]:
        return DEFAULT_LABELS
    return ActionLabels(C=lines[0][1], D=lines[2][1])


def parse_payoff_table(text: str) -> PayoffView | None:
    """The reader's own payoffs from a rendered table, or None if the table is incomplete."""
    labels = parse_labels(text)
    own = {
        (labels.action(m[1]), labels.action(m[2])): float(m[3]) for m in _TABLE_RE.finditer(text)
    }
    if len(own) != 4 or None in {key for pair in own for key in pair}:
        return None
    return PayoffView(R=own["C", "C"], S=own["C", "D"], T=own["D", "C"], P=own["D", "D"])


def last_rounds(history: Sequence[Turn], window: int) -> list[Turn]:
    """Exactly the last ``window`` rounds of ``history`` (fewer when fewer were played)."""
    if window <= 0:
        return []
    start = max(len(history) - window, 0)
    return list(islice(history, start, None))


def render_history(
    turns: Sequence[Turn], *, first_round_index: int, labels: ActionLabels = DEFAULT_LABELS
) -> str:
    """One line per round, oldest first; the first line is round ``first_round_index``."""
    return "\n".join(
        _HISTORY_LINE.format(
            round_index=first_round_index + i,
            own=labels.label(str(t.own_action)),
            opp=labels.label(str(t.opponent_action)),
            own_pay=format_number(t.own_payoff),
            opp_pay=format_number(t.opponent_payoff),
        )
        for i, t in enumerate(turns)
    )


def parse_history(text: str, labels: ActionLabels = DEFAULT_LABELS) -> list[Turn]:
    """The history lines found in ``text`` (actions in ``labels``), oldest first, as the
    reader's turns; a line with another label is not a history line."""
    turns = []
    for m in sorted(_HISTORY_RE.finditer(text), key=lambda m: int(m[1])):
        own, opponent = labels.action(m[2]), labels.action(m[3])
        if own is not None and opponent is not None:
            turns.append(Turn(Action(own), Action(opponent), float(m[4]), float(m[5])))
    return turns


def render_totals(*, own_total: float, opponent_total: float) -> str:
    """The running totals line."""
    return (
        f"Your total so far: {format_number(own_total)}. "
        f"The other player's total so far: {format_number(opponent_total)}."
    )
