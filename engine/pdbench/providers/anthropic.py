"""The Anthropic provider, on the official ``anthropic`` SDK (``uv sync --extra anthropic``).

The key comes from the environment variable ``api_key_env`` names (default
``ANTHROPIC_API_KEY``; ``.env`` is read too); ``base_url`` points at a proxy or a local
stand-in. The SDK's own retries are off (``max_retries=0``): the gateway owns retries.
"""

from __future__ import annotations

from typing import Any

import anthropic

from pdbench.errors import ConfigError
from pdbench.providers.base import Usage
from pdbench.providers.failures import Failure
from pdbench.providers.keys import api_key
from pdbench.providers.sdk_errors import classify_sdk_error

__all__ = ["DEFAULT_KEY_ENV", "AnthropicProvider", "build", "key_problem"]

DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"


class AnthropicProvider:
    """Messages API: the system prompt and one user message in, the text blocks out."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str,
        base_url: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        self.model = model
        self.endpoint = base_url
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, timeout=timeout_s, max_retries=0
        )
        self.last_usage: Usage | None = None

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        """The concatenated text blocks of the reply."""
        self.last_usage = None
        message = self._client.messages.create(
            model=self.model,
            system=system,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            # sent in the body: recent SDK releases no longer take it as an argument
            extra_body={"temperature": temperature},
        )
        if not isinstance(message, anthropic.types.Message):
            raise anthropic.APIResponseValidationError(
                response=None,  # type: ignore[arg-type]
                body=None,
                message="the reply is not a message",
            )
        usage = message.usage
        self.last_usage = Usage(
            tokens_in=usage.input_tokens if usage else None,
            tokens_out=usage.output_tokens if usage else None,
        )
        return "".join(block.text for block in message.content if block.type == "text")

    def classify_error(self, exc: BaseException) -> Failure:
        """Transient or fatal (see :mod:`pdbench.providers.failures`)."""
        return classify_sdk_error(exc, sdk=anthropic)


def key_problem(settings: Any) -> str | None:
    """Why no key can be found for ``settings``, or None."""
    env_var = settings.api_key_env or DEFAULT_KEY_ENV
    if api_key(env_var):
        return None
    return (
        f"provider 'anthropic' needs the environment variable {env_var} (set it, or put it in .env)"
    )


def build(*, settings: Any, seed: int) -> AnthropicProvider:
    """The registry's factory, from an LLM agent's config."""
    problem = key_problem(settings)
    if problem:
        raise ConfigError(problem)
    return AnthropicProvider(
        model=settings.model,
        api_key=api_key(settings.api_key_env or DEFAULT_KEY_ENV) or "",
        base_url=settings.base_url,
        timeout_s=settings.transport.timeout_s,
    )
