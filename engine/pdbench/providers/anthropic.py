"""The Anthropic provider, on the official ``anthropic`` SDK (``uv sync --extra anthropic``).

The key comes from the environment variable ``api_key_env`` names (default
``ANTHROPIC_API_KEY``; ``.env`` is read too); ``base_url`` points at a proxy or a local
stand-in. The SDK's own retries are off (``max_retries=0``): the gateway owns retries.

Extended thinking (``thinking: {budget_tokens: N}`` in the config) sends
``thinking={"type": "enabled", "budget_tokens": N}``, temperature 1 (the only one the API
takes with thinking) and ``max_tokens`` = N + the visible reply's ``max_tokens``, so that the
budget never eats the answer's room. The reply is the text blocks only; thinking blocks are
not the answer. ``usage.output_tokens`` counts thinking tokens too; the API's
``output_tokens_details.thinking_tokens`` is recorded as the reasoning part when a response
carries it, else nothing is (no estimate). ``params`` (``top_p``, ``top_k``,
``stop_sequences``) go into the request as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import anthropic

from pdbench.errors import ConfigError
from pdbench.providers.adapter import SDKAdapter, adapter_options
from pdbench.providers.anthropic_batch import AnthropicBatches
from pdbench.providers.base import Usage, key_env, key_problem
from pdbench.providers.keys import api_key

__all__ = ["STOP_REASONS", "AnthropicProvider", "build"]

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
"""Anthropic's ``stop_reason`` -> the normalised ``finish_reason`` (others are kept as sent)."""


@dataclass(kw_only=True, eq=False)
class AnthropicProvider(SDKAdapter, AnthropicBatches):
    """Messages API: the system prompt and one user message in, the text blocks out; the
    same requests in batches (:mod:`pdbench.providers.anthropic_batch`)."""

    sdk: ClassVar[ModuleType] = anthropic
    client_class = anthropic.Anthropic
    thinking_budget: int | None = None
    """Extended thinking's budget in tokens (None: no thinking)."""

    def request(
        self, *, system: str, prompt: str, temperature: float, max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK call for one prompt."""
        # sampling and thinking go in the body: recent SDK releases no longer take temperature,
        # top_p or top_k as arguments, and early ones do not know thinking
        body: dict[str, Any] = {"temperature": temperature}
        body.update({k: v for k, v in self.params.items() if k in ("top_p", "top_k")})
        if self.thinking_budget is not None:
            body["temperature"] = 1
            body["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
            max_tokens += self.thinking_budget
        request: dict[str, Any] = {
            "model": self.model,
            "system": system,
            "messages": [{"role": "user", "content": prompt}],
            "max_tokens": max_tokens,
            "extra_body": body,
        }
        if "stop_sequences" in self.params:
            request["stop_sequences"] = self.params["stop_sequences"]
        return request

    def send(self, request: dict[str, Any]) -> Any:
        return self.client().messages.create(**request)

    def read(self, response: Any) -> tuple[str, Usage]:
        """The concatenated text blocks of the reply and the usage."""
        if not isinstance(response, anthropic.types.Message):
            self.malformed("the reply is not a message")
        usage = response.usage
        details = getattr(usage, "output_tokens_details", None)
        stop = response.stop_reason
        text = "".join(block.text for block in response.content if block.type == "text")
        return text, Usage(
            tokens_in=usage.input_tokens if usage else None,
            tokens_out=usage.output_tokens if usage else None,
            tokens_reasoning=getattr(details, "thinking_tokens", None),
            finish_reason=STOP_REASONS.get(stop, stop) if stop else None,
        )


def build(*, settings: Any, seed: int) -> AnthropicProvider:
    """The registry's factory, from an LLM agent's config."""
    problem = key_problem("anthropic", settings=settings)
    if problem:
        raise ConfigError(problem)
    return AnthropicProvider(
        **adapter_options(settings),
        api_key=api_key(key_env("anthropic", settings) or "") or "",
        thinking_budget=settings.thinking.budget_tokens if settings.thinking else None,
    )
