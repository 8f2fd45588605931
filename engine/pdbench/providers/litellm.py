"""The LiteLLM provider (``uv sync --extra litellm``): one adapter for a hundred vendors.

``model`` is LiteLLM's name (``openai/gpt-4o-mini``, ``anthropic/claude-3-5-haiku-latest``,
``ollama/llama3``, ...). LiteLLM reads each vendor's key from that vendor's usual variable
(``.env`` is loaded first); ``api_key_env`` names one explicitly and ``base_url`` is
LiteLLM's ``api_base``. LiteLLM's own retries are off (``num_retries=0``): the gateway owns
retries. The cost LiteLLM computes for a reply is reported as the call's cost unless the
config's price table knows the model.

Reasoning models (the table of :mod:`pdbench.providers.reasoning`, read on the name after the
route, e.g. ``openai/o3-mini``) are sent ``max_completion_tokens`` (visible reply + reasoning
budget), no temperature and ``reasoning_effort`` when set, as the OpenAI adapter sends them;
``params`` go to ``litellm.completion`` as they are. LiteLLM reports usage and finish reasons
in OpenAI's shape, and they are read the same way.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

# LiteLLM fetches its price map from the internet on import unless told to use its bundled
# copy; nothing in pdbench may reach for the network unasked.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm

from pdbench.providers.base import Usage, openai_finish_reason
from pdbench.providers.failures import (
    Failure,
    classify_builtin,
    classify_status,
    headers_of,
)
from pdbench.providers.keys import api_key, load_dotenv

__all__ = ["LiteLLMProvider", "build", "classify_litellm_error"]

_TRANSIENT = (
    "Timeout",
    "APIConnectionError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "APIResponseValidationError",
)
_FATAL = (
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "BadRequestError",
    "ContextWindowExceededError",
    "ContentPolicyViolationError",
    "UnprocessableEntityError",
)


def classify_litellm_error(exc: BaseException) -> Failure:
    """Transient or fatal, from LiteLLM's exception classes and status codes."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status >= 400:
        return classify_status(status, headers=headers_of(exc))
    for name in _TRANSIENT:
        kind = getattr(litellm.exceptions, name, None)
        if kind is not None and isinstance(exc, kind):
            return Failure(True, name)
    for name in _FATAL:
        kind = getattr(litellm.exceptions, name, None)
        if kind is not None and isinstance(exc, kind):
            return Failure(False, name)
    return classify_builtin(exc)


class LiteLLMProvider:
    """``litellm.completion`` with one system and one user message."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
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
        self._api_key = api_key
        self._timeout_s = timeout_s
        self.last_usage: Usage | None = None

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The first choice's text."""
        self.last_usage = None
        extra: dict[str, Any] = dict(self.params)
        if self._api_key:
            extra["api_key"] = self._api_key
        if self.endpoint:
            extra["api_base"] = self.endpoint
        if self.reasoning:
            extra["max_completion_tokens"] = max_tokens + self.reasoning_budget
            if self.reasoning_effort is not None:
                extra["reasoning_effort"] = self.reasoning_effort
        else:
            extra["temperature"] = temperature
            extra["max_tokens"] = max_tokens
        response = litellm.completion(
            model=self.model,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            timeout=self._timeout_s,
            num_retries=0,
            **extra,
        )
        usage = getattr(response, "usage", None)
        cost = None
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:
            cost = None
        details = getattr(usage, "completion_tokens_details", None)
        choice = response.choices[0]
        self.last_usage = Usage(
            tokens_in=getattr(usage, "prompt_tokens", None),
            tokens_out=getattr(usage, "completion_tokens", None),
            cost_usd=cost,
            tokens_reasoning=getattr(details, "reasoning_tokens", None),
            finish_reason=openai_finish_reason(getattr(choice, "finish_reason", None)),
        )
        return choice.message.content or ""

    def classify_error(self, exc: BaseException) -> Failure:
        """Transient or fatal (see :func:`classify_litellm_error`)."""
        return classify_litellm_error(exc)


def build(*, settings: Any, seed: int) -> LiteLLMProvider:
    """The registry's factory, from an LLM agent's config."""
    load_dotenv()
    return LiteLLMProvider(
        model=settings.model,
        api_key=api_key(settings.api_key_env) if settings.api_key_env else None,
        base_url=settings.base_url,
        timeout_s=settings.transport.timeout_s,
        reasoning=settings.is_reasoning_model,
        reasoning_effort=settings.reasoning_effort,
        reasoning_budget=settings.reasoning_budget(),
        params=settings.params,
    )
