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

from collections.abc import Mapping
from typing import Any

import openai

from pdbench.errors import ConfigError
from pdbench.providers.base import Usage, openai_finish_reason
from pdbench.providers.failures import Failure
from pdbench.providers.keys import api_key
from pdbench.providers.sdk_errors import classify_sdk_error

__all__ = ["DEFAULT_KEY_ENV", "OpenAIProvider", "build", "key_problem"]

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
_LOCAL_PLACEHOLDER_KEY = "no-key-needed"


class OpenAIProvider:
    """Chat completions: one system and one user message in, the first choice's text out."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 60.0,
        reasoning: bool = False,
        reasoning_effort: str | None = None,
        reasoning_budget: int = 0,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.endpoint = base_url
        self.reasoning = reasoning
        self.reasoning_effort = reasoning_effort
        self.reasoning_budget = reasoning_budget
        self.params = dict(params or {})
        self._client = openai.OpenAI(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0
        )
        self.last_usage: Usage | None = None

    def request(
        self, *, system: str, prompt: str, temperature: float, max_tokens: int
    ) -> dict[str, Any]:
        """The keyword arguments of the SDK call for one prompt."""
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            **self.params,
        }
        if self.reasoning:
            request["max_completion_tokens"] = max_tokens + self.reasoning_budget
            if self.reasoning_effort is not None:
                request["reasoning_effort"] = self.reasoning_effort
        else:
            request["temperature"] = temperature
            request["max_tokens"] = max_tokens
        return request

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The reply text (empty when the model said nothing)."""
        self.last_usage = None
        response = self._client.chat.completions.create(
            **self.request(
                system=system, prompt=prompt, temperature=temperature, max_tokens=max_tokens
            )
        )
        if not isinstance(response, openai.types.chat.ChatCompletion) or not response.choices:
            raise openai.APIResponseValidationError(
                response=None,  # type: ignore[arg-type]
                body=None,
                message="the reply holds no choices",
            )
        choice = response.choices[0]
        usage = response.usage
        details = getattr(usage, "completion_tokens_details", None)
        self.last_usage = Usage(
            tokens_in=usage.prompt_tokens if usage else None,
            tokens_out=usage.completion_tokens if usage else None,
            tokens_reasoning=getattr(details, "reasoning_tokens", None),
            finish_reason=openai_finish_reason(choice.finish_reason),
        )
        return choice.message.content or ""

    def classify_error(self, exc: BaseException) -> Failure:
        """Transient or fatal (see :mod:`pdbench.providers.failures`)."""
        return classify_sdk_error(exc, sdk=openai)


def key_problem(settings: Any) -> str | None:
    """Why no key can be found for ``settings``, or None."""
    env_var = settings.api_key_env or DEFAULT_KEY_ENV
    if api_key(env_var) or settings.base_url:
        return None
    return f"provider 'openai' needs the environment variable {env_var} (set it, or put it in .env)"


def build(*, settings: Any, seed: int) -> OpenAIProvider:
    """The registry's factory, from an LLM agent's config."""
    problem = key_problem(settings)
    if problem:
        raise ConfigError(problem)
    key = api_key(settings.api_key_env or DEFAULT_KEY_ENV) or _LOCAL_PLACEHOLDER_KEY
    return OpenAIProvider(
        model=settings.model,
        api_key=key,
        base_url=settings.base_url,
        timeout_s=settings.transport.timeout_s,
        reasoning=settings.is_reasoning_model,
        reasoning_effort=settings.reasoning_effort,
        reasoning_budget=settings.reasoning_budget(),
        params=settings.params,
    )
