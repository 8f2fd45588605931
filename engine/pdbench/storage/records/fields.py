"""What the records of a run directory share: the schema version, value types, a base class.

The integer types carry their range, and the range decides the DuckDB type a reader gives
the column (:mod:`.columns`): a count, a 1-based position or a score fits in ``INTEGER``;
an integer without bounds (a seed, a token count) is a ``BIGINT``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict

__all__ = [
    "INT32_MAX",
    "SCHEMA_VERSION",
    "Count",
    "GameName",
    "Ordinal",
    "Record",
    "RunStatus",
    "Score",
    "TokenCount",
    "is_stored_prompt",
    "stored_prompt",
]

SCHEMA_VERSION = 2
"""2: PD rounds carry ``agent_a_truncated``/``agent_b_truncated`` and arena answers
``truncated``. Lines of version 1 lack them; readers take them as null (not recorded)."""

INT32_MAX = 2**31 - 1

GameName = Annotated[str, Field(min_length=1)]
"""A game's name, as registered in :mod:`pdbench.games` (``pd``, ``arena``, ...)."""
RunStatus = Literal["running", "completed", "failed", "interrupted"]

Count = Annotated[int, Field(ge=0, le=INT32_MAX)]
"""A count, or a 0-based index."""
Ordinal = Annotated[int, Field(ge=1, le=INT32_MAX)]
"""A 1-based position or number."""
Score = Annotated[int, Field(ge=0, le=10)]
"""An arena rating or judgement."""
TokenCount = Annotated[int, Field(ge=0)]
"""Tokens of one call (no upper bound: a long context runs past any small integer)."""

_STORED_PROMPT: JsonDict = {"x-written-when": "store_prompts"}


def stored_prompt() -> Any:
    """A field written only when the run stores prompts (``store_prompts: true``): the line
    has no such key otherwise."""
    return Field(default=None, json_schema_extra=_STORED_PROMPT)


def is_stored_prompt(extra: object) -> bool:
    """Whether a field's ``json_schema_extra`` marks it :func:`stored_prompt`."""
    return extra == _STORED_PROMPT


class Record(BaseModel):
    """A line of a JSONL file of the run directory."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    schema_version: Ordinal = SCHEMA_VERSION
    """Version of this record layout; a reader rejects versions it does not know."""
