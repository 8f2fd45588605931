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
from dataclasses import dataclass, field
from typing import Any

# LiteLLM fetches its price map from the internet on import unless told to use its bundled
# copy; nothing in pdbench may reach for the network unasked.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm as litellm  # re-exported: the price table reads it once it is set up

from pdbench.providers.adapter import Adapter, adapter_options
from pdbench.providers.deadline import deadline_client
from pdbench.providers.failures import (
    Failure,
    MalformedReply,
    classify_builtin,
    classify_status,
    headers_of,
    reading_reply,
)
from pdbench.providers.keys import api_key, load_dotenv
from pdbench.providers.openai_style import (
    ReasoningRequests,
    chat_messages,
    openai_usage,
    reasoning_options,
)

__all__ = ["LiteLLMProvider", "build", "classify_litellm_error"]

# every call ends within its deadline (the request's own timeout), however slowly its body comes
if litellm.client_session is None:
    litellm.client_session = deadline_client(600.0)

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
    timeout = getattr(litellm.exceptions, "Timeout", None)
    if timeout is not None and isinstance(exc, timeout):  # LiteLLM gives it status 408
        return Failure(True, "timeout")
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


@dataclass(kw_only=True, eq=False)
class LiteLLMProvider(Adapter, ReasoningRequests):
    """``litellm.completion`` with one system and one user message."""

    api_key: str | None = field(default=None, repr=False)
    """The key (None: LiteLLM reads the vendor's usual variable)."""

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The first choice's text."""
        self.last_usage = None
        extra: dict[str, Any] = dict(self.params)
        if self.api_key:
            extra["api_key"] = self.api_key
        if (server := self.servers[self.next_server()]) is not None:
            extra["api_base"] = server
        response = litellm.completion(
            model=self.model,
            messages=chat_messages(system=system, prompt=prompt),
            timeout=self.timeout_s,
            num_retries=0,
            **extra,
            **self.sampling(temperature=temperature, max_tokens=max_tokens),
        )
        cost = None
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:
            cost = None
        with reading_reply():
            if not response.choices:
                raise MalformedReply("the reply holds no choices")
            choice = response.choices[0]
            self.last_usage = openai_usage(
                getattr(response, "usage", None),
                finish_reason=getattr(choice, "finish_reason", None),
                cost_usd=cost,
            )
            text = choice.message.content or ""
            if not isinstance(text, str):
                raise MalformedReply("the reply's text is not a string")
        return text

    def classify_error(self, exc: BaseException) -> Failure:
        """Transient or fatal (see :func:`classify_litellm_error`)."""
        return classify_litellm_error(exc)


def build(*, settings: Any, seed: int) -> LiteLLMProvider:
    """The registry's factory, from an LLM agent's config."""
    load_dotenv()
    return LiteLLMProvider(
        **adapter_options(settings),
        **reasoning_options(settings),
        api_key=api_key(settings.api_key_env) if settings.api_key_env else None,
    )
