"""What a provider's batch API is to pdbench: submit requests, ask how the batch is doing,
read what each request became.

A batch is a set of independent requests a provider answers within a day at a lower price
(OpenAI's Batch API, Anthropic's Message Batches). An adapter that can batch implements
:class:`BatchClient`:

- ``submit_batch(items) -> batch id``: every item is a request under a ``custom_id``;
- ``batch_ended(batch id) -> bool``: whether the provider has finished with it (completed,
  expired, cancelled or failed: no request of it will change any more);
- ``batch_results(batch id) -> {custom_id: outcome}``: a :class:`BatchAnswer` (the reply
  and its usage) or a :class:`BatchFailure` (errored, expired, cancelled) per request; a
  request missing from the results was never answered.

The adapter knows no game and no cache; :mod:`pdbench.providers.batch_lane` queues requests,
splits them to the provider's :class:`BatchLimits`, polls, and hands the outcomes to the
gateway, which records them as it records single calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pdbench.providers.base import Usage
from pdbench.providers.calls import CallRequest

__all__ = [
    "BatchAnswer",
    "BatchClient",
    "BatchFailure",
    "BatchItem",
    "BatchLimits",
    "BatchOutcome",
    "can_batch",
    "split_items",
]


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One request of a batch, under the id its outcome comes back with."""

    custom_id: str
    request: CallRequest

    def arguments(self, request: Callable[..., dict[str, Any]]) -> dict[str, Any]:
        """The SDK arguments an adapter's ``request`` builds for this single call."""
        return self.request.pass_to(request)


@dataclass(frozen=True, slots=True)
class BatchAnswer:
    """A request the batch answered."""

    reply: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class BatchFailure:
    """A request the batch did not answer: ``errored``, ``expired``, ``cancelled`` or
    ``missing`` (not in the results at all)."""

    kind: str
    detail: str = ""


BatchOutcome = BatchAnswer | BatchFailure


@dataclass(frozen=True, slots=True)
class BatchLimits:
    """The most one batch may hold."""

    max_requests: int
    max_bytes: int
    """Of the submitted body (OpenAI: the uploaded JSONL file)."""


@runtime_checkable
class BatchClient(Protocol):
    """An adapter that can batch (see the module)."""

    batch_limits: BatchLimits

    def batch_line(self, item: BatchItem) -> dict[str, Any]: ...
    def submit_batch(self, items: Sequence[BatchItem]) -> str: ...
    def batch_ended(self, batch_id: str) -> bool: ...
    def batch_results(self, batch_id: str) -> dict[str, BatchOutcome]: ...


def can_batch(client: object) -> bool:
    """Whether ``client`` implements :class:`BatchClient`."""
    return isinstance(client, BatchClient)


def split_items(items: Sequence[BatchItem], *, client: BatchClient) -> list[list[BatchItem]]:
    """``items`` in batches that respect ``client``'s limits (request count and bytes of the
    submitted lines), in order."""
    limits = client.batch_limits
    batches: list[list[BatchItem]] = []
    current: list[BatchItem] = []
    size = 0
    for item in items:
        line = len(json.dumps(client.batch_line(item)).encode("utf-8")) + 1
        if current and (len(current) >= limits.max_requests or size + line > limits.max_bytes):
            batches.append(current)
            current, size = [], 0
        current.append(item)
        size += line
    if current:
        batches.append(current)
    return batches
