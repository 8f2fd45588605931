"""What follows from a record's model: the keys of its lines, and its DuckDB columns.

A line holds the model's fields in the model's order; a :func:`~.fields.stored_prompt` field
only when the run stores prompts. DuckDB types follow the Python types:

==============================================  ==========================================
field type                                      DuckDB type
==============================================  ==========================================
``str``, a ``Literal`` of strings               ``VARCHAR``
``int`` with bounds inside 32 bits              ``INTEGER`` (counts, positions, scores)
``int`` without such bounds                     ``BIGINT`` (seeds, token counts)
``float``                                       ``DOUBLE``
``bool``                                        ``BOOLEAN``
``dict``, ``list``, a nested model              ``JSON`` (read whole, taken apart in SQL)
``X | None``                                    the type of ``X`` (a null is a NULL)
==============================================  ==========================================
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from pdbench.storage.records.fields import INT32_MAX, is_stored_prompt

__all__ = ["duckdb_columns", "duckdb_type", "line_keys"]

_SCALARS: dict[Any, str] = {str: "VARCHAR", float: "DOUBLE", bool: "BOOLEAN"}


def line_keys(model: type[BaseModel]) -> tuple[str, ...]:
    """The keys every line of ``model`` holds, in the order they are written."""
    return tuple(
        name
        for name, field in model.model_fields.items()
        if not is_stored_prompt(field.json_schema_extra)
    )


def duckdb_columns(model: type[BaseModel], *names: str) -> dict[str, str]:
    """``{column: DuckDB type}`` of every field of ``model`` in field order, or of ``names``
    only, in the order given."""
    fields = model.model_fields
    unknown = [name for name in names if name not in fields]
    if unknown:
        raise ValueError(f"{model.__name__} has no field {', '.join(map(repr, unknown))}")
    return {
        name: duckdb_type(fields[name].annotation, fields[name].metadata)
        for name in (names or fields)
    }


def duckdb_type(annotation: Any, metadata: Iterable[Any] = ()) -> str:
    """The DuckDB type of values of ``annotation`` (``metadata``: its constraints)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extra = get_args(annotation)
        return duckdb_type(inner, [*metadata, *_constraints(extra)])
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(options) == 1:
            return duckdb_type(options[0], metadata)
    elif origin is Literal:
        if all(isinstance(value, str) for value in get_args(annotation)):
            return "VARCHAR"
    elif annotation is int:
        return "INTEGER" if _fits_in_32_bits(metadata) else "BIGINT"
    elif annotation in _SCALARS:
        return _SCALARS[annotation]
    elif annotation in (dict, list) or origin in (dict, list) or _is_model(annotation):
        return "JSON"
    raise TypeError(f"no DuckDB type for {annotation!r}")


def _constraints(extra: Iterable[Any]) -> list[Any]:
    """The constraints in ``Annotated`` metadata (a ``Field(...)`` holds its own list)."""
    found: list[Any] = []
    for item in extra:
        found.extend(item.metadata if isinstance(item, FieldInfo) else [item])
    return found


def _fits_in_32_bits(metadata: Iterable[Any]) -> bool:
    """Whether the bounds in ``metadata`` (``Field(ge=..., le=...)`` and the like) keep an
    integer inside 32 bits."""
    low = high = None
    for item in metadata:
        low = getattr(item, "ge", low)
        low = item.gt + 1 if hasattr(item, "gt") else low
        high = getattr(item, "le", high)
        high = item.lt - 1 if hasattr(item, "lt") else high
    return low is not None and high is not None and low >= -INT32_MAX - 1 and high <= INT32_MAX


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)
