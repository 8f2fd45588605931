"""The ``params:`` of an LLM config: request parameters passed through to the provider's SDK.

Each provider takes a small, known set (its spec's ``params``,
:data:`pdbench.providers.base.PROVIDERS`), each with a checked type:

- ``openai``: ``seed``, ``top_p``, ``stop``, ``frequency_penalty``, ``presence_penalty`` and
  ``extra_body`` (a mapping merged into the request body, for a server's own options);
- ``anthropic``: ``top_p``, ``top_k``, ``stop_sequences``;
- ``litellm``: ``seed``, ``top_p``, ``stop``, ``frequency_penalty``, ``presence_penalty``;
- ``mock``: none.

Keys pdbench sets itself (:data:`SET_BY_PDBENCH`: the model, the messages, temperature, the
token limits, reasoning and thinking) are refused, also inside ``extra_body``, with the field
that sets them; so is any other key. Every refusal is one line.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pdbench.providers.base import PROVIDERS

__all__ = ["SET_BY_PDBENCH", "checked_params", "param_types"]


@cache
def param_types(provider: str) -> dict[str, TypeAdapter[Any]]:
    """The params ``provider`` takes, each with the type its value must have (none for a
    provider pdbench does not know)."""
    spec = PROVIDERS.get(provider)
    return {key: TypeAdapter(kind) for key, kind in (spec.params if spec else {}).items()}


SET_BY_PDBENCH: dict[str, str] = {
    "model": "use model",
    "messages": "the prompt templates write it",
    "system": "the prompt templates write it",
    "temperature": "use temperature",
    "max_tokens": "use max_tokens",
    "max_completion_tokens": "use max_tokens and reasoning_budget_tokens",
    "reasoning_effort": "use reasoning_effort",
    "thinking": "use thinking",
    "stream": "replies are never streamed",
    "n": "one reply per call",
    "timeout": "use transport.timeout_s",
}
"""Request keys pdbench sets -> what sets them instead."""


def checked_params(provider: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with their values checked for ``provider``; a ``ValueError`` with one line
    says why they cannot go to it."""
    allowed = param_types(provider)
    checked: dict[str, Any] = {}
    for key, value in params.items():
        if key in SET_BY_PDBENCH:
            raise ValueError(_set_by_pdbench(key))
        if key not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise ValueError(
                f"unknown parameter {key!r} for provider {provider} (allowed: {known})"
            )
        try:
            checked[key] = allowed[key].validate_python(value, strict=True)
        except ValidationError as exc:
            raise ValueError(f"{key}: {exc.errors()[0]['msg']} (got {value!r})") from None
    for inner in checked.get("extra_body", {}):
        if inner in SET_BY_PDBENCH:
            raise ValueError(f"extra_body: {_set_by_pdbench(inner)}")
    return checked


def _set_by_pdbench(key: str) -> str:
    return f"{key!r} is set by pdbench, not by params ({SET_BY_PDBENCH[key]})"
