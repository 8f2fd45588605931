"""Anthropic's Message Batches for :class:`pdbench.providers.anthropic.AnthropicProvider`.

``client.messages.batches.create(requests=[{"custom_id", "params"}])`` starts a batch whose
``params`` are exactly what a single call sends; ``client.messages.batches.retrieve`` tells
its ``processing_status`` (``in_progress``, ``canceling``, ``ended``); once ended,
``client.messages.batches.results`` streams one result per request: ``succeeded`` (the
message), ``errored``, ``canceled`` or ``expired``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anthropic

from pdbench.providers.batch import BatchAnswer, BatchFailure, BatchItem, BatchLimits, BatchOutcome

__all__ = ["AnthropicBatches"]

_FAILURE_KINDS = {"errored": "errored", "canceled": "cancelled", "expired": "expired"}


class AnthropicBatches:
    """The batch side of the Anthropic adapter (mixed into it: uses its client, ``request``
    and ``read``)."""

    batch_limits = BatchLimits(max_requests=100_000, max_bytes=256 * 1024 * 1024)
    batch_client: Any
    request: Any
    read: Any

    def batch_line(self, item: BatchItem) -> dict[str, Any]:
        """One request of the batch: the single call's arguments as ``params``."""
        arguments = item.arguments(self.request)
        body = arguments.pop("extra_body", {})
        return {"custom_id": item.custom_id, "params": {**arguments, **body}}

    def submit_batch(self, items: Sequence[BatchItem]) -> str:
        """Start the batch; its id."""
        batch = self.batch_client().messages.batches.create(
            requests=[self.batch_line(item) for item in items]
        )
        return str(batch.id)

    def batch_ended(self, batch_id: str) -> bool:
        """Whether processing has ended."""
        status: str = self.batch_client().messages.batches.retrieve(batch_id).processing_status
        return status == "ended"

    def batch_results(self, batch_id: str) -> dict[str, BatchOutcome]:
        """Every request's outcome."""
        outcomes: dict[str, BatchOutcome] = {}
        for entry in self.batch_client().messages.batches.results(batch_id):
            result = entry.result
            if result.type == "succeeded":
                try:
                    text, usage = self.read(result.message)
                except (anthropic.APIError, ValueError) as exc:
                    outcomes[entry.custom_id] = BatchFailure("errored", str(exc))
                    continue
                outcomes[entry.custom_id] = BatchAnswer(reply=text, usage=usage)
            else:
                error = getattr(result, "error", None)
                detail = error.error.message if error is not None else ""
                outcomes[entry.custom_id] = BatchFailure(_FAILURE_KINDS[result.type], detail)
        return outcomes
