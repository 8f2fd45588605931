"""OpenAI's Batch API for :class:`pdbench.providers.openai.OpenAIProvider`.

The requests go up as a JSONL file (``client.files.create(purpose="batch")``), one line per
request: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``, the
body being exactly what a single call sends. ``client.batches.create`` starts the batch,
``client.batches.retrieve`` tells its status (``validating``, ``in_progress``,
``finalizing``, ``cancelling`` run on; ``completed``, ``failed``, ``expired``, ``cancelled``
have ended), and the outcomes are read from its output file (answered requests) and error
file (requests that failed, or were never run when the batch expired or was cancelled:
``batch_expired``, ``batch_cancelled``), both through ``client.files.content``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import openai

from pdbench.providers.batch import BatchAnswer, BatchFailure, BatchItem, BatchLimits, BatchOutcome

__all__ = ["ENDED", "OpenAIBatches"]

ENDPOINT = "/v1/chat/completions"
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
"""Statuses after which no request of a batch changes any more."""
_FAILURE_KINDS = {"batch_expired": "expired", "batch_cancelled": "cancelled"}


class OpenAIBatches:
    """The batch side of the OpenAI adapter (mixed into it: uses its client, ``request`` and
    ``read``)."""

    batch_limits = BatchLimits(max_requests=50_000, max_bytes=200 * 1024 * 1024)
    batch_client: Any
    request: Any
    read: Any

    def batch_line(self, item: BatchItem) -> dict[str, Any]:
        """The JSONL line of one request."""
        body = item.arguments(self.request)
        return {"custom_id": item.custom_id, "method": "POST", "url": ENDPOINT, "body": body}

    def submit_batch(self, items: Sequence[BatchItem]) -> str:
        """Upload the requests and start the batch; its id."""
        lines = "".join(json.dumps(self.batch_line(item)) + "\n" for item in items)
        upload = self.batch_client().files.create(
            file=("requests.jsonl", lines.encode("utf-8")), purpose="batch"
        )
        batch = self.batch_client().batches.create(
            input_file_id=upload.id, endpoint=ENDPOINT, completion_window="24h"
        )
        return str(batch.id)

    def batch_ended(self, batch_id: str) -> bool:
        """Whether the batch has ended (see :data:`ENDED`)."""
        return self.batch_client().batches.retrieve(batch_id).status in ENDED

    def batch_results(self, batch_id: str) -> dict[str, BatchOutcome]:
        """Every request's outcome, from the output and the error file."""
        batch = self.batch_client().batches.retrieve(batch_id)
        outcomes: dict[str, BatchOutcome] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            for line in self.batch_client().files.content(file_id).text.splitlines():
                if line.strip():
                    entry = json.loads(line)
                    outcomes[str(entry["custom_id"])] = self._outcome(entry)
        return outcomes

    def _outcome(self, entry: dict[str, Any]) -> BatchOutcome:
        """One line of the output or error file as an outcome."""
        error = entry.get("error")
        if error:
            code = str(error.get("code") or "")
            return BatchFailure(_FAILURE_KINDS.get(code, "errored"), str(error.get("message")))
        response = entry.get("response") or {}
        body = response.get("body") or {}
        if response.get("status_code") != 200:
            message = (body.get("error") or {}).get("message", "")
            return BatchFailure("errored", f"HTTP {response.get('status_code')}: {message}")
        try:
            text, usage = self.read(openai.types.chat.ChatCompletion.model_validate(body))
        except (openai.APIError, ValueError) as exc:
            return BatchFailure("errored", str(exc))
        return BatchAnswer(reply=text, usage=usage)
