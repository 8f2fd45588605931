from collections import deque

from pdbench.pd.actions import C, D, Turn
from pdbench.pd.transcript import (
    last_rounds,
    parse_history,
    parse_payoff_table,
    render_history,
)

HISTORY = [Turn(C, C, 3, 3), Turn(C, D, 0, 5), Turn(D, D, 1, 1), Turn(D, C, 5, 0)]


def test_window_is_exactly_the_last_n_rounds():
    assert last_rounds(HISTORY, 2) == [Turn(D, D, 1, 1), Turn(D, C, 5, 0)]
    assert last_rounds(HISTORY, 1) == [Turn(D, C, 5, 0)]
    assert last_rounds(HISTORY, 4) == HISTORY


def test_window_larger_than_the_history_shows_everything():
    assert last_rounds(HISTORY[:2], 5) == HISTORY[:2]


def test_window_zero_shows_nothing():
    assert last_rounds(HISTORY, 0) == []
    assert last_rounds([], 3) == []


def test_window_works_on_the_runners_bounded_deque():
    kept = deque(HISTORY, maxlen=3)
    assert last_rounds(kept, 2) == [Turn(D, D, 1, 1), Turn(D, C, 5, 0)]


def test_history_lines_are_numbered_from_the_first_shown_round():
    text = render_history(HISTORY[2:], first_round_index=3)
    assert text == (
        "Round 3: you played D, the other player played D; you got 1, they got 1.\n"
        "Round 4: you played D, the other player played C; you got 5, they got 0."
    )


def test_history_parses_back_in_round_order():
    text = "noise\n" + render_history([Turn(C, D, 0.5, -2)], first_round_index=9) + "\nmore"
    text = render_history(HISTORY[:1], first_round_index=8) + "\n" + text
    assert parse_history(text) == [Turn(C, C, 3, 3), Turn(C, D, 0.5, -2)]


def test_an_incomplete_payoff_table_is_not_read():
    assert (
        parse_payoff_table("- You play C, the other player plays C: you get 3, they get 3.") is None
    )
