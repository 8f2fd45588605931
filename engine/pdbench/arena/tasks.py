"""One call task of a phase: ask a player until its reply is usable, or attempts run out.

Every phase is a list of independent :class:`CallTask` values, planned up front from the seed
and the previous phase's records, and an ordered write of their outcomes. Nothing a task does
depends on another task of the same phase, so the runner asks them concurrently
(:func:`pdbench.run.concurrency.run_concurrently`); the records are written in task order,
so the rows do not depend on the order in which the calls finish.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Literal

from pdbench.arena.prompts import Phase, correction_prompt
from pdbench.providers.calls import CallContext, CallRequest, Reply, Verdict
from pdbench.providers.gateway import ProviderGateway

__all__ = [
    "Attempt",
    "CallOutcome",
    "CallTask",
    "PlayerClient",
    "Reading",
    "ask",
]

SYSTEM_PROMPT = ""
"""The arena's prompts are single user messages, as in the spec."""


@dataclass(frozen=True, slots=True)
class CallTask:
    """One thing to ask one player."""

    phase: Phase | Literal["rationale", "pairwise"]
    player: str
    prompt: str
    max_tokens: int
    item_id: str | None = None
    """The question (rate, answer), answer (judge, self_assess) or shown pair of answers
    (pairwise: ``<first answer>><second answer>``, ``/named`` in the name arm) the call is
    about; None for generate."""
    question_id: str | None = None
    """The question the item belongs to."""
    presentation_index: int | None = None
    """Position of the item in this player's shuffled order (rate, judge)."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What a reader made of a reply."""

    value: Any
    problem: str | None = None
    """None when the reply is usable; else the sentence put before the re-ask."""
    rank: int = 0
    """Among unusable replies, the highest rank is kept (e.g. the most questions)."""
    rule: str | None = None
    """The extraction rule that read a usable reply (recorded as ``parse_rule``)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One provider call of a task."""

    prompt: str
    reply: str
    prompt_sha256: str
    reading: Reading
    truncated: bool = False
    """The reply was cut at the token limit."""


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """A finished task: every attempt, and the one whose reply is recorded."""

    task: CallTask
    attempts: tuple[Attempt, ...]
    used: int
    """Index into ``attempts`` of the recorded reply."""
    follow_up: CallOutcome | None = None
    """The rationale asked after an extreme judgement, if one was."""

    @property
    def is_valid(self) -> bool:
        """Whether the recorded reply is usable."""
        return self.attempts[self.used].reading.problem is None

    @property
    def value(self) -> Any:
        """The parsed value of the recorded reply (None for an invalid score)."""
        return self.attempts[self.used].reading.value

    @property
    def recorded(self) -> Attempt:
        """The attempt whose prompt and reply go into the record."""
        return self.attempts[self.used]


@dataclass(frozen=True, slots=True)
class PlayerClient:
    """How to call one player: its gateway (which records calls) and its decoding."""

    gateway: ProviderGateway
    temperature: float


def ask(
    task: CallTask,
    *,
    client: PlayerClient,
    read: Callable[[str], Reading],
    max_retries: int,
) -> CallOutcome:
    """Ask ``task`` up to ``1 + max_retries`` times, re-asking with the reader's correction.

    The recorded reply is the first usable one; when none is, the highest-ranked (earliest
    on ties) unusable one.
    """
    context = CallContext(game="arena", phase=task.phase, agent=task.player, item_id=task.item_id)
    attempts: list[Attempt] = []
    request = CallRequest(
        system=SYSTEM_PROMPT,
        prompt=task.prompt,
        temperature=client.temperature,
        max_tokens=task.max_tokens,
    )
    for number in range(1, max_retries + 2):
        readings: list[Reading] = []

        def classify(reply: Reply, _readings: list[Reading] = readings) -> Verdict:
            _readings.append(read(reply.text))
            if _readings[-1].problem is None:
                return "ok", _readings[-1].rule
            return "invalid", None

        reply = client.gateway.complete(
            request,
            context=context,
            attempt=number,
            classify=classify,
        )
        reading = readings[0] if readings else read(reply.text)
        attempts.append(
            Attempt(
                prompt=request.prompt,
                reply=reply.text,
                prompt_sha256=request.prompt_sha256,
                reading=reading,
                truncated=reply.truncated,
            )
        )
        if reading.problem is None:
            return CallOutcome(task=task, attempts=tuple(attempts), used=len(attempts) - 1)
        request = replace(request, prompt=correction_prompt(task.prompt, problem=reading.problem))
    best = max(range(len(attempts)), key=lambda i: (attempts[i].reading.rank, -i))
    return CallOutcome(task=task, attempts=tuple(attempts), used=best)
