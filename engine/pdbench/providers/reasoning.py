"""Which models reason before they answer, and what that changes in a request.

OpenAI's reasoning models (o1, o3, o4-mini, the gpt-5 family) answer HTTP 400 to
``max_tokens`` and to any ``temperature`` but the default 1. pdbench sends them
``max_completion_tokens`` (which caps reasoning and answer together) and no temperature, and
may send ``reasoning_effort``. Whether a model is one is read from :data:`REASONING_MODELS`,
by name prefix (case ignored, any route such as ``openai/`` stripped); the longest matching
prefix wins, and a prefix matches a name equal to it or followed by ``-`` or ``.``
(``o3`` matches ``o3``, ``o3-mini``, ``o3-2025-04-16``; ``gpt-5`` matches ``gpt-5-mini`` and
``gpt-5.1``). A config's ``reasoning: true|false`` overrides the table for one agent.

The table needs no SDK: configs are checked with it before any provider is built.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_REASONING_BUDGET",
    "REASONING_EFFORTS",
    "REASONING_MODELS",
    "ModelFamily",
    "model_family",
]

REASONING_EFFORTS = ("minimal", "low", "medium", "high")
"""Every ``reasoning_effort`` pdbench passes on (a family may take fewer)."""

DEFAULT_REASONING_BUDGET = 4096
"""Output tokens a reasoning model may spend reasoning on top of its visible reply, when the
config names no ``reasoning_budget_tokens``."""


@dataclass(frozen=True, slots=True)
class ModelFamily:
    """Models whose names start with ``prefix``."""

    prefix: str
    reasoning: bool
    """True: takes ``max_completion_tokens``, no ``max_tokens``, no temperature but 1."""
    efforts: tuple[str, ...] = ()
    """The ``reasoning_effort`` values the family takes."""


REASONING_MODELS: tuple[ModelFamily, ...] = (
    ModelFamily("o1", reasoning=True, efforts=("low", "medium", "high")),
    ModelFamily("o3", reasoning=True, efforts=("low", "medium", "high")),
    ModelFamily("o4", reasoning=True, efforts=("low", "medium", "high")),
    ModelFamily("gpt-5", reasoning=True, efforts=("minimal", "low", "medium", "high")),
    # the chat snapshot of gpt-5 is not a reasoning model
    ModelFamily("gpt-5-chat", reasoning=False),
)
"""The model table: names by prefix, longest prefix first when several match."""


def model_family(model: str) -> ModelFamily | None:
    """The family of ``model`` in :data:`REASONING_MODELS`, or None (not a reasoning model)."""
    name = model.rsplit("/", 1)[-1].lower()
    matches = [
        family
        for family in REASONING_MODELS
        if name == family.prefix or name.startswith((f"{family.prefix}-", f"{family.prefix}."))
    ]
    return max(matches, key=lambda family: len(family.prefix), default=None)
