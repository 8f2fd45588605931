"""What the adapters of OpenAI-shaped chat APIs share: the OpenAI SDK and LiteLLM.

Both send one system and one user message, cap and sample a reply the same way (a reasoning
model gets ``max_completion_tokens``, the visible reply's ``max_tokens`` plus the reasoning
budget, no temperature, and ``reasoning_effort`` when set; any other model its temperature
and ``max_tokens``), and read usage and finish reasons in OpenAI's shape, where
``completion_tokens`` already holds the ``completion_tokens_details.reasoning_tokens``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from pdbench.providers.base import Usage

__all__ = [
    "ReasoningOptions",
    "ReasoningRequests",
    "chat_messages",
    "openai_finish_reason",
    "openai_usage",
    "reasoning_options",
]


def chat_messages(*, system: str, prompt: str) -> list[dict[str, str]]:
    """The system prompt and the prompt as the two messages of a chat request."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": prompt},
    ]


def openai_finish_reason(raw: str | None) -> str | None:
    """A ``finish_reason`` in OpenAI's shape (OpenAI, LiteLLM, OpenAI-compatible servers),
    normalised: the legacy ``function_call`` reads as ``tool_calls``; other words are kept."""
    return "tool_calls" if raw == "function_call" else raw


def openai_usage(usage: Any, *, finish_reason: str | None, cost_usd: float | None = None) -> Usage:
    """The :class:`Usage` of a response in OpenAI's shape (``usage`` may be None)."""
    details = getattr(usage, "completion_tokens_details", None)
    return Usage(
        tokens_in=getattr(usage, "prompt_tokens", None),
        tokens_out=getattr(usage, "completion_tokens", None),
        cost_usd=cost_usd,
        tokens_reasoning=getattr(details, "reasoning_tokens", None),
        finish_reason=openai_finish_reason(finish_reason),
    )


class ReasoningOptions(TypedDict):
    """The reasoning fields of :class:`ReasoningRequests`, as an LLM's config sets them."""

    reasoning: bool
    reasoning_effort: str | None
    reasoning_budget: int


def reasoning_options(settings: Any) -> ReasoningOptions:
    """The reasoning fields of an adapter from an LLM's config (its provider settings)."""
    return ReasoningOptions(
        reasoning=settings.is_reasoning_model,
        reasoning_effort=settings.reasoning_effort,
        reasoning_budget=settings.reasoning_budget(),
    )


@dataclass(kw_only=True, eq=False)
class ReasoningRequests:
    """How an adapter of an OpenAI-shaped API caps and samples a reply (see the module)."""

    reasoning: bool = False
    """Whether the model reasons before it answers (:mod:`pdbench.providers.reasoning`)."""
    reasoning_effort: str | None = None
    """Sent as ``reasoning_effort`` to a reasoning model (None: the model's default)."""
    reasoning_budget: int = 0
    """Output tokens a reasoning model may spend reasoning on top of the visible reply."""

    def sampling(self, *, temperature: float, max_tokens: int) -> dict[str, Any]:
        """The request's arguments that cap and sample the reply."""
        if not self.reasoning:
            return {"temperature": temperature, "max_tokens": max_tokens}
        arguments: dict[str, Any] = {"max_completion_tokens": max_tokens + self.reasoning_budget}
        if self.reasoning_effort is not None:
            arguments["reasoning_effort"] = self.reasoning_effort
        return arguments
