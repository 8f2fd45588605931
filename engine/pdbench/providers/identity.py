"""What a provider client answers as: the part of the response cache's key that names the
replier, and the endpoint the manifest records.

A cached reply may stand in for a call only when nothing that can change the reply differs.
Rather than list what matters (and miss what a config gains later, or what the environment
supplies), the key holds everything the client itself was built from:

- :func:`reply_identity` asks the client (``reply_identity()``: a real provider's model, its
  parameters and its *resolved* endpoints, including one an SDK read from
  ``OPENAI_BASE_URL`` or ``.env``; the mock's whole player, seed and invalid rate); a client
  from outside the registry that says nothing is named by its class;
- the gateway adds the LLM's whole config but for the fields that only say how a call is
  made (:data:`pdbench.config.providers.NOT_IN_A_REPLY`: timeout, retries, cache, batch,
  the name of the key's variable).

:func:`public_url` drops what must never reach a file (a user and password in the URL, its
query and fragment), so the endpoint can be shown and recorded.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = ["describe", "endpoint_variables", "public_url", "reply_identity"]

_ENDPOINT_SUFFIXES = ("_BASE_URL", "_API_BASE")


def public_url(url: str) -> str:
    """``url`` without a user, a password, a query, a fragment or a trailing slash (an SDK
    adds one to the URL it was given)."""
    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    if not parts.scheme and not host:
        return parts.path.rstrip("/")
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def endpoint_variables() -> dict[str, str]:
    """Environment variables that point an SDK at a server (``OPENAI_BASE_URL``,
    ``ANTHROPIC_BASE_URL``, ``*_API_BASE``), as public URLs."""
    return {
        name: public_url(value)
        for name, value in sorted(os.environ.items())
        if value and name.upper().endswith(_ENDPOINT_SUFFIXES)
    }


def reply_identity(client: object) -> dict[str, Any]:
    """What ``client`` answers as (see the module): its own ``reply_identity()``, which every
    provider of the registry has; any other client is named by its class alone (its
    attributes may count calls, which must not change the key)."""
    own = getattr(client, "reply_identity", None)
    identity = {"class": _class_name(client)}
    if callable(own):
        identity.update(own())
    return identity


def describe(value: object, *, depth: int = 0) -> Any:
    """``value`` as plain JSON data: dataclasses and objects by their class and public
    attributes, containers item by item; anything else by its ``repr``."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if depth > 8:
        return repr(value)
    if isinstance(value, dict):
        return {str(k): describe(v, depth=depth + 1) for k, v in sorted(value.items(), key=str)}
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=repr) if isinstance(value, set | frozenset) else value
        return [describe(item, depth=depth + 1) for item in items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return {"class": _class_name(value), **describe(_public(fields), depth=depth + 1)}
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict):
        state = {k: v for k, v in _public(attributes).items() if not callable(v)}
        return {"class": _class_name(value), **describe(state, depth=depth + 1)}
    return repr(value)


def _public(attributes: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attributes.items() if not k.startswith("_")}


def _class_name(value: object) -> str:
    kind = type(value)
    return f"{kind.__module__}.{kind.__qualname__}"
