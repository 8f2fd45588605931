"""The ``params:`` of an LLM config: request parameters passed through to the provider's SDK.

Each provider takes a small, known set (:data:`PROVIDER_PARAMS`), each with a checked type:

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
from typing import Annotated, Any

from pydantic import Field, TypeAdapter, ValidationError

__all__ = ["PROVIDER_PARAMS", "SET_BY_PDBENCH", "checked_params"]

_Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
_Penalty = Annotated[float, Field(ge=-2, le=2, allow_inf_nan=False)]
_Stop = str | Annotated[list[str], Field(min_length=1, max_length=4)]
_StopSequences = Annotated[list[str], Field(min_length=1)]

_OPENAI: dict[str, Any] = {
    "seed": int,
    "top_p": _Probability,
    "stop": _Stop,
    "frequency_penalty": _Penalty,
    "presence_penalty": _Penalty,
    "extra_body": dict[str, Any],
}
_ANTHROPIC: dict[str, Any] = {
    "top_p": _Probability,
    "top_k": Annotated[int, Field(ge=1)],
    "stop_sequences": _StopSequences,
}
_LITELLM: dict[str, Any] = {key: _OPENAI[key] for key in _OPENAI if key != "extra_body"}

PROVIDER_PARAMS: dict[str, dict[str, TypeAdapter]] = {
    provider: {key: TypeAdapter(kind) for key, kind in table.items()}
    for provider, table in (
        ("openai", _OPENAI),
        ("anthropic", _ANTHROPIC),
        ("litellm", _LITELLM),
        ("mock", {}),
    )
}
"""Provider -> the params it takes, each with the type its value must have."""

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
    allowed = PROVIDER_PARAMS.get(provider, {})
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
