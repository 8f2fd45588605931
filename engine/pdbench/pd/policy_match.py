"""The hot loop of a match between two policies: no observations, no dicts, no JSON encoder.

Policies answer ``first_action()`` and ``next_action(own, opponent, own_payoff)`` in plain
``"C"``/``"D"`` strings; each round line is one f-string over a :class:`RoundLineTemplate`.
Lines are handed to ``write_text`` in chunks of ``CHUNK_ROUNDS``, so memory stays flat
whatever the length of the match. The caller flushes when the match ends: a crash loses only
rounds of the match in progress, which has no ``matches.jsonl`` line and is incomplete anyway
(a reader drops a torn last line; a resume must drop rounds of matches without a match line).

Timestamps are refreshed at most once per millisecond (formatting one costs more than a
round): every line carries a time at most 1 ms before its round was played.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Protocol

from pdbench.clock import utc_timestamp
from pdbench.pd.round_lines import RoundLineTemplate

__all__ = ["CHUNK_ROUNDS", "FastPolicy", "play_policy_rounds"]

CHUNK_ROUNDS = 4096
"""Round lines joined into one write."""

_TICK = 0.001


class FastPolicy(Protocol):
    """What the hot loop needs from an agent (every ``Policy`` has it)."""

    def first_action(self) -> str: ...

    def next_action(self, own: str, opponent: str, own_payoff: float) -> str: ...


def play_policy_rounds(
    *,
    agent_a: FastPolicy,
    agent_b: FastPolicy,
    template: RoundLineTemplate,
    payoffs: dict[tuple[str, str], tuple[float, float]],
    rounds: int,
    write_text: Callable[[str, int], None],
    noise_a: Callable[[str], str] | None = None,
    noise_b: Callable[[str], str] | None = None,
) -> tuple[int, float, float]:
    """Play ``rounds`` rounds and hand their lines to ``write_text(text, n_lines)``.

    ``noise_a``/``noise_b`` turn an intended action into the executed one (None: no noise).
    Returns ``(rounds played, total of A, total of B)``.
    """
    head, middle, outcomes, sep, tail = template.parts()
    pay = {a + b: (float(pa), float(pb)) for (a, b), (pa, pb) in payoffs.items()}
    next_a, next_b = agent_a.next_action, agent_b.next_action
    noisy = noise_a is not None or noise_b is not None
    execute_a = noise_a or _same
    execute_b = noise_b or _same
    clock, stamp = perf_counter, utc_timestamp
    timestamp = stamp()
    next_tick = clock() + _TICK
    total_a = total_b = 0.0
    buffer: list[str] = []
    append = buffer.append
    join = "".join
    intended_a, intended_b = agent_a.first_action(), agent_b.first_action()
    action_a = action_b = ""
    payoff_a = payoff_b = 0.0
    for round_index in range(1, rounds + 1):
        if round_index > 1:
            intended_a = next_a(action_a, action_b, payoff_a)
            intended_b = next_b(action_b, action_a, payoff_b)
        if noisy:
            action_a = execute_a(intended_a)
            action_b = execute_b(intended_b)
        else:
            action_a, action_b = intended_a, intended_b
        pair = action_a + action_b
        payoff_a, payoff_b = pay[pair]
        total_a += payoff_a
        total_b += payoff_b
        now = clock()
        if now >= next_tick:
            timestamp = stamp()
            next_tick = now + _TICK
        append(
            f"{head}{round_index}{middle}{outcomes[intended_a + intended_b + pair]}"
            f"{total_a!r}{sep}{total_b!r}{tail}{timestamp}"
            '"}\n'
        )
        if not round_index % CHUNK_ROUNDS:
            write_text(join(buffer), len(buffer))
            buffer.clear()
    if buffer:
        write_text(join(buffer), len(buffer))
    return rounds, total_a, total_b


def _same(action: str) -> str:
    return action
