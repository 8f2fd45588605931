"""The batch APIs of the loopback server (:mod:`tests.servers.wire`), as the real ones behave.

OpenAI: ``POST /v1/files`` (multipart, ``purpose=batch``) stores a JSONL file of requests;
``POST /v1/batches`` starts a batch on it (``validating``, then ``in_progress``);
``GET /v1/batches/{id}`` tells its status; once it has ended (``completed``, ``expired``,
``cancelled``) it names an output file (answered requests, ``response.status_code`` 200) and
an error file (requests that failed, with their error body; requests never run, with
``error.code`` ``batch_expired`` or ``batch_cancelled``), read with
``GET /v1/files/{id}/content``. ``POST /v1/batches/{id}/cancel`` cancels it.

Anthropic: ``POST /v1/messages/batches`` starts a batch of ``{custom_id, params}``
(``processing_status: in_progress``); ``GET /v1/messages/batches/{id}`` tells its status and,
once ``ended``, its ``results_url``; ``GET .../results`` streams one line per request with a
result of type ``succeeded``, ``errored``, ``expired`` or ``canceled``.

The schedule is the test's: a batch ends on the ``polls_to_end``-th status request after its
creation, never while ``hold`` is set; the next ``cut_next`` batches end ``cut_as``
(``expired`` or ``cancelled``) instead, with only their first ``answered_before_cut``
requests answered (OpenAI's ``failed``: none, and neither output nor error file); a
request for which ``fails`` holds is answered with an error (HTTP 500) and counted in
``failed``. Every request a batch holds is counted in ``submitted`` (its ``custom_id``), and
``created`` lists the batches.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP

__all__ = ["BatchDesk", "Reply"]

Reply = tuple[int, dict]
"""What the server answers one request of a batch with: the status and the JSON body."""

_ENDED = ("completed", "expired", "cancelled", "failed")
_PROCESSING = {"validating": "in_progress", "in_progress": "in_progress", "cancelling": "canceling"}
_CREATED = "2026-01-01T00:00:00Z"
_EXPIRES = "2026-01-02T00:00:00Z"


@dataclass
class _Batch:
    id: str
    wire: str
    requests: list[dict]
    """``{"custom_id", "body"}`` each."""
    input_file_id: str = ""
    status: str = "in_progress"
    polls: int = 0
    results: list[dict] = field(default_factory=list)
    """What became of each request once the batch has ended."""


class BatchDesk:
    """The batches of one loopback server (see the module)."""

    def __init__(self, *, wire: str, respond: Callable[[dict], Reply], base_url: Callable[[], str]):
        self.wire = wire
        self.respond = respond
        self.base_url = base_url
        self.hold = threading.Event()
        self.polls_to_end = 1
        self.cut_next = 0
        self.cut_as = "expired"
        self.answered_before_cut = 0
        self.failed: list[str] = []
        self.status_requests = 0
        """Status requests of any batch (the client is polling)."""
        self.fails: Callable[[dict], bool] = lambda body: False
        self.submitted: list[str] = []
        self.created: list[str] = []
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    # --- routing -------------------------------------------------------------------------

    def handles(self, path: str) -> bool:
        """Whether ``path`` is a batch or file endpoint."""
        return bool(re.match(r"^/v1/(files|batches|messages/batches)(/|$)", path))

    def post(self, path: str, content_type: str, raw: bytes) -> tuple[int, bytes, str]:
        if path == "/v1/files":
            return self._upload(content_type, raw)
        if path == "/v1/batches":
            return self._openai_create(json.loads(raw))
        if path == "/v1/messages/batches":
            return self._anthropic_create(json.loads(raw))
        match = re.match(r"^/v1/(?:messages/)?batches/([^/]+)/cancel$", path)
        if match:
            return self._cancel(match.group(1))
        return _json(404, {"error": {"message": f"no route {path}"}})

    def get(self, path: str) -> tuple[int, bytes, str]:
        path = path.split("?")[0]
        match = re.match(r"^/v1/files/([^/]+)/content$", path)
        if match:
            return 200, self._files.get(match.group(1), b""), "application/octet-stream"
        match = re.match(r"^/v1/messages/batches/([^/]+)/results$", path)
        if match:
            lines = "".join(json.dumps(r) + "\n" for r in self._batches[match.group(1)].results)
            return 200, lines.encode(), "application/binary"
        match = re.match(r"^/v1/(?:messages/)?batches/([^/]+)$", path)
        if match and match.group(1) in self._batches:
            return self._status(match.group(1))
        return _json(404, {"error": {"message": f"no such object {path}", "type": "not_found"}})

    # --- OpenAI --------------------------------------------------------------------------

    def _upload(self, content_type: str, raw: bytes) -> tuple[int, bytes, str]:
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        form = BytesParser(policy=HTTP).parsebytes(head + raw)
        parts = {
            part.get_param("name", header="content-disposition"): part for part in form.iter_parts()
        }
        content = parts["file"].get_payload(decode=True)
        with self._lock:
            file_id = f"file-{next(self._ids)}"
            self._files[file_id] = content
        return _json(
            200,
            {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": 0,
                "filename": parts["file"].get_filename(),
                "purpose": "batch",
                "status": "processed",
            },
        )

    def _openai_create(self, body: dict) -> tuple[int, bytes, str]:
        lines = self._files[body["input_file_id"]].decode().splitlines()
        requests = [json.loads(line) for line in lines if line.strip()]
        batch = self._new(
            "openai", [{"custom_id": r["custom_id"], "body": r["body"]} for r in requests]
        )
        batch.input_file_id = body["input_file_id"]
        batch.status = "validating"
        return _json(200, self._openai_view(batch))

    def _openai_view(self, batch: _Batch) -> dict:
        ended = batch.status in _ENDED
        ok = [
            r
            for r in batch.results
            if r.get("response", {}) and r["response"]["status_code"] == 200
        ]
        failed = [r for r in batch.results if r not in ok]
        files = {"output_file_id": None, "error_file_id": None}
        if ended:
            for name, rows in (("output_file_id", ok), ("error_file_id", failed)):
                if rows:
                    file_id = f"file-{batch.id}-{name[:3]}"
                    self._files[file_id] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                    files[name] = file_id
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": batch.status,
            "created_at": 0,
            "expires_at": 86400,
            **files,
            "request_counts": {
                "total": len(batch.requests),
                "completed": len(ok),
                "failed": len(failed),
            },
        }

    # --- Anthropic -----------------------------------------------------------------------

    def _anthropic_create(self, body: dict) -> tuple[int, bytes, str]:
        batch = self._new(
            "anthropic",
            [{"custom_id": r["custom_id"], "body": r["params"]} for r in body["requests"]],
        )
        return _json(200, self._anthropic_view(batch))

    def _anthropic_view(self, batch: _Batch) -> dict:
        ended = batch.status in _ENDED
        counts = {
            "processing": 0 if ended else len(batch.requests),
            "succeeded": 0,
            "errored": 0,
            "canceled": 0,
            "expired": 0,
        }
        for result in batch.results:
            counts[result["result"]["type"]] += 1
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": _PROCESSING.get(batch.status, "ended"),
            "request_counts": counts,
            "created_at": _CREATED,
            "expires_at": _EXPIRES,
            "ended_at": _EXPIRES if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.base_url()}/v1/messages/batches/{batch.id}/results"
            if ended
            else None,
        }

    # --- the schedule --------------------------------------------------------------------

    def _new(self, wire: str, requests: list[dict]) -> _Batch:
        with self._lock:
            prefix = "batch" if wire == "openai" else "msgbatch"
            batch = _Batch(id=f"{prefix}_{next(self._ids):04d}", wire=wire, requests=requests)
            self._batches[batch.id] = batch
            self.created.append(batch.id)
            self.submitted.extend(r["custom_id"] for r in requests)
        return batch

    def _status(self, batch_id: str) -> tuple[int, bytes, str]:
        with self._lock:
            self.status_requests += 1
            batch = self._batches[batch_id]
            if batch.status in ("validating", "in_progress") and not self.hold.is_set():
                batch.polls += 1
                batch.status = "in_progress"
                if batch.polls >= self.polls_to_end:
                    self._end(batch)
        view = self._openai_view(batch) if batch.wire == "openai" else self._anthropic_view(batch)
        return _json(200, view)

    def _cancel(self, batch_id: str) -> tuple[int, bytes, str]:
        with self._lock:
            batch = self._batches[batch_id]
            self._end(batch, answered=0, status="cancelled")
        return self._status(batch_id)

    def _end(
        self, batch: _Batch, *, answered: int | None = None, status: str = "completed"
    ) -> None:
        """Run the batch: answer its requests (the first ``answered`` only when it expires or
        is cancelled; the rest were never run)."""
        if answered is None and self.cut_next:
            self.cut_next -= 1
            answered, status = self.answered_before_cut, self.cut_as
        batch.status = status
        if status == "failed":  # OpenAI: the input failed validation; no request was run
            return
        for index, request in enumerate(batch.requests):
            if answered is not None and index >= answered:
                batch.results.append(self._unrun(request["custom_id"], status))
            else:
                batch.results.append(self._run(request))

    def _run(self, request: dict) -> dict:
        custom_id, body = request["custom_id"], request["body"]
        status, reply = (500, _error_body(self.wire)) if self.fails(body) else self.respond(body)
        if status != 200:
            self.failed.append(custom_id)
        if self.wire == "openai":
            return {
                "id": f"req_{custom_id[:8]}",
                "custom_id": custom_id,
                "error": None,
                "response": {"status_code": status, "request_id": "req", "body": reply},
            }
        if status == 200:
            return {"custom_id": custom_id, "result": {"type": "succeeded", "message": reply}}
        return {"custom_id": custom_id, "result": {"type": "errored", "error": reply}}

    def _unrun(self, custom_id: str, status: str) -> dict:
        if self.wire == "openai":
            code = "batch_expired" if status == "expired" else "batch_cancelled"
            message = f"This request could not be executed before the batch was {status}."
            return {
                "id": f"req_{custom_id[:8]}",
                "custom_id": custom_id,
                "response": None,
                "error": {"code": code, "message": message},
            }
        kind = "expired" if status == "expired" else "canceled"
        return {"custom_id": custom_id, "result": {"type": kind}}


def _error_body(wire: str) -> dict:
    if wire == "openai":
        return {
            "error": {"message": "The server had an error", "type": "server_error", "code": None}
        }
    return {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}


def _json(status: int, body: dict) -> tuple[int, bytes, str]:
    return status, json.dumps(body).encode(), "application/json"
