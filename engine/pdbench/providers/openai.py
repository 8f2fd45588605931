"""The OpenAI-compatible provider, on the official ``openai`` SDK (``uv sync --extra openai``).

Anything that speaks OpenAI's chat-completions API works through ``base_url``: OpenAI itself
(default), vLLM (``http://localhost:8000/v1``), Ollama (``http://localhost:11434/v1``), a
llama.cpp server (``http://localhost:8080/v1``), OpenRouter (``https://openrouter.ai/api/v1``).

The key comes from the environment variable ``api_key_env`` names (default
``OPENAI_API_KEY``; ``.env`` is read too). A local server usually needs no key: with a
``base_url`` and the variable unset, a placeholder is sent. The SDK's own retries are off
(``max_retries=0``): the gateway owns retries.

Reasoning models (:mod:`pdbench.providers.reasoning`) are sent ``max_completion_tokens`` =
the visible reply's ``max_tokens`` + the reasoning budget, never ``max_tokens``, no
temperature, and ``reasoning_effort`` when the config sets it. ``params`` (checked by
:mod:`pdbench.providers.params`) go to the SDK call as they are. The usage read back splits
out ``completion_tokens_details.reasoning_tokens``, which ``completion_tokens`` already
includes.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar

import openai

from pdbench.errors import ConfigError
from pdbench.providers.adapter import SDKAdapter, adapter_options
from pdbench.providers.base import Usage, key_env, key_problem
from pdbench.providers.keys import api_key
from pdbench.providers.openai_batch import OpenAIBatches
from pdbench.providers.openai_style import (
    ReasoningRequests,
    chat_messages,
    openai_usage,
    reasoning_options,
)

__all__ = ["OpenAIProvider", "build"]

_LOCAL_PLACEHOLDER_KEY = "no-key-needed"


@dataclass(kw_only=True, eq=False)
class OpenAIProvider(SDKAdapter, ReasoningRequests, OpenAIBatches):
    """Chat completions: one system and one user message in, the first choice's text out;
    the same requests in batches (:mod:`pdbench.providers.openai_batch`)."""

    sdk: ClassVar[ModuleType] = openai
    client_class = openai.OpenAI

    def request(
        self, *, system: str, prompt: str, temperature: float, max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK call for one prompt."""
        return {
            "model": self.model,
            "messages": chat_messages(system=system, prompt=prompt),
            **self.params,
            **self.sampling(temperature=temperature, max_tokens=max_tokens),
        }

    def send(self, request: dict[str, Any]) -> Any:
        return self.client().chat.completions.create(**request)

    def read(self, response: Any) -> tuple[str, Usage]:
        """The first choice's text (empty when the model said nothing) and the usage."""
        if not isinstance(response, openai.types.chat.ChatCompletion) or not response.choices:
            self.malformed("the reply holds no choices")
        choice = response.choices[0]
        usage = openai_usage(response.usage, finish_reason=choice.finish_reason)
        return choice.message.content or "", usage


def build(*, settings: Any, seed: int) -> OpenAIProvider:
    """The registry's factory, from an LLM agent's config."""
    problem = key_problem("openai", settings=settings)
    if problem:
        raise ConfigError(problem)
    return OpenAIProvider(
        **adapter_options(settings),
        **reasoning_options(settings),
        api_key=api_key(key_env("openai", settings) or "") or _LOCAL_PLACEHOLDER_KEY,
    )
