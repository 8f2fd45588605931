"""``MockProvider``: a provider with no network and no keys, for tests and demos.

It is a pure function of its seed and the prompt it is given: the same ``(system, prompt)``
always gets the same reply. What it answers is decided by a *player* (:class:`MockPlayer`)
that the game supplies through the settings of the agent the mock stands in for
(:class:`MockSource`); the provider itself knows no game and only adds what every game
shares: invalid replies at a seeded rate, replies that run past the token limit at a seeded
rate, and optional simulated latency.

A reply drawn to run long is what a small model often writes: the prompt echoed back, then
the reply; it is cut at ``max_tokens`` (four characters a token, the mock's count) and ends
with ``finish_reason`` ``length``, as a real provider reports a reply cut at the limit. Every
other reply ends with ``stop``.

Its batches (:class:`pdbench.providers.batch.BatchClient`) end as soon as they are
submitted, every request answered as a single call would be; they live in this process only,
so a batch id from another process has no results (its requests are asked again).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol

from pdbench.providers.base import Usage
from pdbench.providers.batch import BatchAnswer, BatchItem, BatchLimits, BatchOutcome
from pdbench.providers.calls import prompt_sha256
from pdbench.providers.identity import describe
from pdbench.rng import stream

__all__ = ["INVALID_REPLIES", "MockPlayer", "MockProvider", "MockSetup", "MockSource", "build"]

INVALID_REPLIES = (
    "I think I will cooperate this time.",
    "",
    "C or D?",
    "CD",
    "Let me think about the payoffs first.",
    "maybe",
)
"""What the mock says when it is drawn to be invalid: chatter, nothing, a question, two
tokens run together, hesitation; the kind of reply a model gives when it ignores the format
asked for, which a game's strict reader rejects."""


class MockPlayer(Protocol):
    """Decides the mock's valid reply to a prompt; ``rng`` is seeded from the prompt."""

    def reply(self, *, system: str, prompt: str, rng: Random) -> str: ...


@dataclass(frozen=True)
class MockSetup:
    """A mock for one agent: who answers, and what every game's mock shares."""

    player: MockPlayer
    seed: int | None = None
    """Replaces the seed the run derives for the agent (None: keep it)."""
    invalid_rate: float = 0.0
    """Share of replies drawn to be invalid (one of ``INVALID_REPLIES``)."""
    latency_ms: float = 0.0
    """Simulated latency of every call."""
    truncated_rate: float = 0.0
    """Share of replies drawn to run long: the prompt echoed, then the reply, cut at
    ``max_tokens`` (see the module)."""


class MockSource(Protocol):
    """The settings of an agent the mock can stand in for (a game's player config)."""

    def mock_setup(self) -> MockSetup: ...


class MockProvider:
    """Deterministic stand-in for a model: ``player`` answers, the seed decides invalid replies."""

    def __init__(
        self,
        *,
        player: MockPlayer,
        seed: int,
        invalid_rate: float = 0.0,
        latency_ms: float = 0.0,
        truncated_rate: float = 0.0,
    ) -> None:
        for name, rate in (("invalid_rate", invalid_rate), ("truncated_rate", truncated_rate)):
            if not 0 <= rate <= 1:
                raise ValueError(f"{name} must be in [0, 1], got {rate}")
        self.player = player
        self.seed = seed
        self.invalid_rate = invalid_rate
        self.latency_ms = latency_ms
        self.truncated_rate = truncated_rate
        self.last_usage: Usage | None = None

    def reply_identity(self) -> dict[str, Any]:
        """What this mock answers as: its whole player, its seed and its invalid rate
        (:mod:`pdbench.providers.identity`)."""
        return {
            "player": describe(self.player),
            "seed": self.seed,
            "invalid_rate": self.invalid_rate,
        }

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The reply to ``(system, prompt)``; ``temperature`` is ignored, ``max_tokens`` cuts
        only a reply drawn to run long (see the module)."""
        if self.latency_ms > 0:
            time.sleep(self.latency_ms / 1000)
        rng = stream(self.seed, "mock", prompt_sha256(system, prompt))
        if rng.random() < self.invalid_rate:
            reply = INVALID_REPLIES[rng.randrange(len(INVALID_REPLIES))]
        else:
            reply = self.player.reply(system=system, prompt=prompt, rng=rng)
        finish_reason = "stop"
        # drawn last, and only when asked for: every other draw is the same with or without it
        if self.truncated_rate > 0 and rng.random() < self.truncated_rate:
            reply = f"{prompt}\n{reply}"
            if _approx_tokens(reply) > max_tokens:
                reply, finish_reason = reply[: 4 * max_tokens], "length"
        self.last_usage = Usage(
            tokens_in=_approx_tokens(system) + _approx_tokens(prompt),
            tokens_out=_approx_tokens(reply),
            cost_usd=0.0,
            finish_reason=finish_reason,
        )
        return reply

    batch_limits = BatchLimits(max_requests=100_000, max_bytes=256 * 1024 * 1024)

    def batch_line(self, item: BatchItem) -> dict[str, str]:
        """What a batch holds of one request: its id and the sha256 of its prompts."""
        return {"custom_id": item.custom_id, "prompt_sha256": item.request.prompt_sha256}

    def submit_batch(self, items: Sequence[BatchItem]) -> str:
        """Answer every request now; the batch's id."""
        answers: dict[str, BatchOutcome] = {}
        for item in items:
            reply = item.request.ask(self)
            answers[item.custom_id] = BatchAnswer(reply=reply, usage=self.last_usage or Usage())
        digest = hashlib.sha256("".join(sorted(answers)).encode()).hexdigest()[:24]
        with _BATCHES_LOCK:
            batch_id = f"mockbatch_{digest}_{len(_BATCHES)}"
            _BATCHES[batch_id] = answers
        return batch_id

    def batch_ended(self, batch_id: str) -> bool:
        """Always: a mock batch ends when it is submitted."""
        return True

    def batch_results(self, batch_id: str) -> dict[str, BatchOutcome]:
        """The answers of a batch of this process (none for any other id)."""
        with _BATCHES_LOCK:
            return dict(_BATCHES.get(batch_id, {}))


_BATCHES: dict[str, dict[str, BatchOutcome]] = {}
"""The mock's batches of this process, by id."""
_BATCHES_LOCK = threading.Lock()


def _approx_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def build(*, settings: MockSource, seed: int) -> MockProvider:
    """The registry's factory: the mock the agent's ``settings`` describe."""
    setup = settings.mock_setup()
    return MockProvider(
        player=setup.player,
        seed=seed if setup.seed is None else setup.seed,
        invalid_rate=setup.invalid_rate,
        latency_ms=setup.latency_ms,
        truncated_rate=setup.truncated_rate,
    )
