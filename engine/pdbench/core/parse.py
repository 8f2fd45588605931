"""Strict reading of an agent's reply: a move or nothing.

``token`` format: the reply, trimmed, is ``C`` or ``D`` in either case.
``json`` format: the reply, trimmed, is a JSON object with exactly one key ``"action"`` whose
value is ``"C"`` or ``"D"`` (either case). Anything else is invalid: no guessing from prose.
"""

from __future__ import annotations

import json
from typing import Literal

from pdbench.core.types import Action

__all__ = ["OutputFormat", "parse_action"]

OutputFormat = Literal["token", "json"]


def parse_action(reply: str, *, output_format: OutputFormat = "token") -> Action | None:
    """The action in ``reply``, or None when the reply is not valid in ``output_format``."""
    if output_format == "token":
        return _token(reply)
    if output_format == "json":
        try:
            value = json.loads(reply.strip())
        except ValueError:
            return None
        if not isinstance(value, dict) or set(value) != {"action"}:
            return None
        action = value["action"]
        if not isinstance(action, str) or action != action.strip():
            return None
        return _token(action)
    raise ValueError(f"unknown output format {output_format!r}")


def _token(text: str) -> Action | None:
    token = text.strip().upper()
    if token == "C":
        return Action.C
    if token == "D":
        return Action.D
    return None
