"""How a config's validation error becomes one line: ``<file>: <field path>: <message>``.

The first error is reported (a misspelt key beside the key it misses, as the unknown key that
names both), its location written as a field path, blamed on the file a ref brought the value
from unless the referring file's overrides set it, and an unknown key gets the closest key the
model accepts there (``did you mean``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, Tag, ValidationError

from pdbench.config.base import PLAIN_KEY, TAG_PREFIX
from pdbench.errors import ConfigError, did_you_mean
from pdbench.redact import redacted_text

__all__ = ["RefSite", "config_error", "field_path"]


@dataclass(frozen=True)
class RefSite:
    """Where a ref was expanded: the field path, the file it brought in, its overrides."""

    loc: tuple[str | int, ...]
    file: str
    overrides: dict[str, Any]


def field_path(loc: tuple[str | int, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.startswith(TAG_PREFIX):
            continue
        else:
            name = str(part)
            if not PLAIN_KEY.fullmatch(name):
                name = repr(name)
            out += f".{name}" if out else name
    return out


def _in_overrides(overrides: Any, rest: tuple[str | int, ...]) -> bool:
    node = overrides
    for part in rest:
        if isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return False
    return True


def _message(error: Mapping[str, Any], *, model: type[BaseModel]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        key = error["loc"][-1]
        close = difflib.get_close_matches(str(key), sorted(_keys_at(model, error["loc"][:-1])), n=1)
        return "unknown key" + did_you_mean(close)
    if kind == "missing":
        return "required key is missing"
    message = str(error["msg"])
    if message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    value = error.get("input")
    if kind not in {"value_error", "invalid_tag"} and isinstance(value, str | int | float | bool):
        message += f" (got {redacted_text(repr(value))})"
    elif kind == "invalid_tag" and isinstance(value, Mapping) and "type" in value:
        message += f" (got {value['type']!r})"
    return message


def _keys_at(annotation: Any, loc: tuple[str | int, ...]) -> set[str]:
    """The keys the model at ``loc`` (a pydantic error's location, tags included) accepts,
    from ``annotation`` down: every model that may sit there, through lists, mappings,
    optionals and tagged unions (empty when none can be told)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        base, *metadata = get_args(annotation)
        tags = [m.tag for m in metadata if isinstance(m, Tag)]
        if tags and loc and isinstance(loc[0], str) and loc[0].startswith(TAG_PREFIX):
            return _keys_at(base, loc[1:]) if loc[0] in tags else set()
        return _keys_at(base, loc)
    if origin in (Union, UnionType):
        return set().union(*(_keys_at(member, loc) for member in get_args(annotation)))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        fields = annotation.model_fields
        if not loc:
            return set(fields) | {f.alias for f in fields.values() if f.alias}
        part = loc[0]
        if isinstance(part, str) and part.startswith(TAG_PREFIX):
            return _keys_at(annotation, loc[1:])
        named = {f.alias or name: f for name, f in fields.items()} | dict(fields)
        field_info = named.get(part) if isinstance(part, str) else None
        return set() if field_info is None else _keys_at(field_info.annotation, loc[1:])
    args = get_args(annotation)
    if loc and isinstance(loc[0], int) and origin in (list, tuple, set, frozenset):
        return set().union(*(_keys_at(a, loc[1:]) for a in args if a is not Ellipsis))
    if loc and isinstance(loc[0], str) and origin in (dict, Mapping) and len(args) == 2:
        return _keys_at(args[1], loc[1:])
    return set()


def _first(errors: list[Any]) -> Any:
    """The error to report: the first, except that a misspelt key (an unknown key beside a
    missing one in the same mapping) is reported as the unknown key, which names both."""
    first = errors[0]
    if first["type"] != "missing":
        return first
    parent = first["loc"][:-1]
    return next(
        (e for e in errors if e["type"] == "extra_forbidden" and e["loc"][:-1] == parent), first
    )


def config_error(
    exc: ValidationError, *, file: str, sites: list[RefSite], model: type[BaseModel]
) -> ConfigError:
    errors = exc.errors()
    error = _first(errors)
    loc = tuple(p for p in error["loc"] if not (isinstance(p, str) and p.startswith(TAG_PREFIX)))
    message = _message(error, model=model)
    if len(errors) > 1:
        message += f" (and {len(errors) - 1} more)"
    site = max(
        (s for s in sites if loc[: len(s.loc)] == s.loc),
        key=lambda s: len(s.loc),
        default=None,
    )
    if site is not None:
        rest = loc[len(site.loc) :]
        if rest and not _in_overrides(site.overrides, rest):
            referenced = f"referenced from {file}: {field_path(site.loc)}"
            return ConfigError(
                f"{message} ({referenced})", path=site.file, field=field_path(rest) or None
            )
    return ConfigError(message, path=file, field=field_path(loc) or None)
