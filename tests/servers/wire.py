"""A local HTTP server speaking the OpenAI chat-completions and Anthropic messages wire
formats, for driving the real SDKs through ``base_url`` without a network.

Each request takes the next step of a script (a status with headers, a delay, a malformed
body, a reply text, a reply cut at the token limit); when the script runs out the server
replies ``default_reply``, or what ``answer`` makes of the request. Every request is recorded
(path, headers, JSON body).

Like the real APIs, the server refuses a request its model cannot take, with the real error
body and HTTP 400, before any step is taken:

- OpenAI reasoning models (names starting ``o1``, ``o3``, ``o4`` or ``gpt-5``, but not
  ``gpt-5-chat``) refuse ``max_tokens`` and a temperature other than 1; other models refuse
  ``reasoning_effort``. A reasoning reply spends ``reasoning_tokens`` before its text
  (``usage.completion_tokens_details.reasoning_tokens``), and is cut (``finish_reason:
  length``, no text) when ``max_completion_tokens`` leaves no room for the text.
- Anthropic with ``thinking`` enabled refuses a budget under 1024, a temperature other than 1
  and a ``max_tokens`` not above the budget; its reply has a ``thinking`` block (with a
  ``signature``) before the ``text`` block, and ``usage.output_tokens`` counts the thinking
  tokens (``usage.output_tokens_details.thinking_tokens``).

The batch APIs (OpenAI's Files and Batches, Anthropic's Message Batches) are served by
:class:`tests.servers.batches.BatchDesk` (``server.batches``), which answers every request of
a batch as a single call would be answered (refusals included).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

from tests.servers.batches import BatchDesk, Reply

Wire = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class Step:
    """What the server does with one request."""

    reply: str | None = None
    """Reply with this text (valid body)."""
    status: int | None = None
    """Fail with this status (and an error body in the wire's format)."""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    """Sleep this long first (a slow server)."""
    raw_body: bytes | None = None
    """Send these bytes as a 200 JSON body (malformed on purpose)."""
    echo_key: bool = False
    """Put the request's API key in the error message (servers do, sometimes)."""
    cut: bool = False
    """Reply with this text cut at the token limit (``finish_reason: length``, Anthropic's
    ``stop_reason: max_tokens``)."""
    content_type: str = "application/json"
    """The content type of a ``raw_body`` (an HTML error page from a proxy: ``text/html``)."""
    hold: threading.Event | None = None
    """Answer only once this is set (a call in flight for as long as a test needs)."""
    drip: bool = False
    """Send a 200 header promising a large body, then one byte at a time, forever (until the
    client hangs up or the server stops)."""


def reply(text: str) -> Step:
    return Step(reply=text)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def system(self) -> str:
        """The system prompt, in either wire format."""
        if "system" in self.body:
            return str(self.body["system"])
        messages = self.body.get("messages") or [{}]
        return str(messages[0].get("content", "")) if messages[0].get("role") == "system" else ""

    @property
    def prompt(self) -> str:
        """The last user message."""
        return str((self.body.get("messages") or [{}])[-1].get("content", ""))


OPENAI_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


def is_openai_reasoning_model(model: str) -> bool:
    """The server's own rule (kept apart from pdbench's table, which it checks)."""
    name = model.lower()
    if name.startswith("gpt-5-chat"):
        return False
    return any(name == p or name.startswith((f"{p}-", f"{p}.")) for p in OPENAI_REASONING_PREFIXES)


def openai_refusal(body: dict) -> dict | None:
    """The error body OpenAI answers ``body`` with (HTTP 400), or None."""
    model = str(body.get("model", ""))
    if is_openai_reasoning_model(model):
        if "max_tokens" in body:
            return _openai_error(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                param="max_tokens",
                code="unsupported_parameter",
            )
        temperature = body.get("temperature", 1)
        if temperature != 1:
            return _openai_error(
                f"Unsupported value: 'temperature' does not support {temperature} with this "
                "model. Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
    elif "reasoning_effort" in body:
        return _openai_error(
            "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
            param="reasoning_effort",
            code="unsupported_parameter",
        )
    return None


def _openai_error(message: str, *, param: str, code: str) -> dict:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


def anthropic_refusal(body: dict) -> dict | None:
    """The error body Anthropic answers ``body`` with (HTTP 400), or None."""
    thinking = body.get("thinking") or {}
    if thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens", 0)
    if budget < 1024:
        message = "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    elif body.get("temperature", 1) != 1:
        message = (
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our "
            f"documentation at {THINKING_DOCS}"
            "#important-considerations-when-using-extended-thinking"
        )
    elif body.get("max_tokens", 0) <= budget:
        message = (
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size"
        )
    else:
        return None
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}


class WireServer:
    """The server; ``base_url`` is what the SDK gets."""

    def __init__(
        self,
        wire: Wire,
        *,
        default_reply: str = "C",
        answer: Callable[[Request], str] | None = None,
        reasoning_tokens: int = 64,
    ) -> None:
        self.wire = wire
        self.default_reply = default_reply
        self.answer = answer
        """Makes the reply to a request when the script is out (instead of default_reply)."""
        self.reasoning_tokens = reasoning_tokens
        """Tokens an OpenAI reasoning model reasons, or a thinking Claude thinks, per reply."""
        self.refused = 0
        """Requests answered 400 because the model cannot take them."""
        self.script: list[Step] = []
        self.stopped = threading.Event()
        """Set when the server stops (a dripping reply ends then)."""
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self.batches = BatchDesk(wire=wire, respond=self._batch_reply, base_url=self._root)
        """The batch APIs: their schedule, and the requests every batch held."""

    def _root(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def _batch_reply(self, body: dict) -> Reply:
        """How one request of a batch is answered: as the same single call would be."""
        request = Request("batch", {}, body)
        refusal = (openai_refusal if self.wire == "openai" else anthropic_refusal)(body)
        if refusal is not None:
            return 400, refusal
        text = self.answer(request) if self.answer else self.default_reply
        return 200, self._body(request, text)

    @property
    def base_url(self) -> str:
        port = self._httpd.server_address[1]
        return (
            f"http://127.0.0.1:{port}/v1" if self.wire == "openai" else f"http://127.0.0.1:{port}"
        )

    @property
    def hits(self) -> int:
        with self._lock:
            return len(self.requests)

    def then(self, *steps: Step) -> WireServer:
        with self._lock:
            self.script.extend(steps)
        return self

    def _next(self, request: Request) -> Step:
        refusal = openai_refusal if self.wire == "openai" else anthropic_refusal
        with self._lock:
            self.requests.append(request)
            if refusal(request.body) is not None:
                self.refused += 1
                return Step(status=400)
            if self.script:
                return self.script.pop(0)
        return Step(reply=self.answer(request) if self.answer else self.default_reply)

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                status, body, content_type = server.batches.get(self.path)
                self._send(status, body, {}, content_type=content_type)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if server.batches.handles(self.path):
                    status, body, kind = server.batches.post(
                        self.path, self.headers.get("content-type", ""), raw
                    )
                    self._send(status, body, {}, content_type=kind)
                    return
                payload = json.loads(raw or b"{}")
                request = Request(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, payload
                )
                step = server._next(request)
                if step.hold is not None:
                    step.hold.wait()
                if step.delay_s:
                    time.sleep(step.delay_s)
                try:
                    self._answer(step, request)
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _answer(self, step: Step, request: Request) -> None:
                if step.drip:
                    self._drip()
                elif step.raw_body is not None:
                    self._send(200, step.raw_body, step.headers, content_type=step.content_type)
                elif step.status is not None:
                    refusal = openai_refusal if server.wire == "openai" else anthropic_refusal
                    body = refusal(request.body) if step.status == 400 else None
                    if body is None:
                        key = request.headers.get("x-api-key") or request.headers.get(
                            "authorization", ""
                        ).removeprefix("Bearer ")
                        message = f"failure {step.status}" + (
                            f" for key {key}" if step.echo_key else ""
                        )
                        body = (
                            {"error": {"message": message, "type": "error", "code": None}}
                            if server.wire == "openai"
                            else {
                                "type": "error",
                                "error": {"type": "api_error", "message": message},
                            }
                        )
                    self._send(step.status, json.dumps(body).encode(), step.headers)
                else:
                    self._send(
                        200,
                        json.dumps(server._body(request, step.reply or "", cut=step.cut)).encode(),
                        step.headers,
                    )

            def _drip(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(1 << 30))
                self.end_headers()
                self.wfile.write(b'{"id": "chatcmpl-1", "choices": [')
                while not server.stopped.wait(0.05):
                    self.wfile.write(b" ")
                    self.wfile.flush()

            def _send(
                self,
                status: int,
                body: bytes,
                headers: dict[str, str],
                content_type: str = "application/json",
            ) -> None:
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def _body(self, request: Request, text: str, *, cut: bool = False) -> dict:
        model = request.body.get("model", "?")
        tokens_in = sum(len(str(m.get("content", ""))) for m in request.body.get("messages", []))
        tokens_in += len(str(request.body.get("system", "")))
        tokens_in //= 4
        if self.wire == "openai":
            return self._openai_body(request, text, model=model, tokens_in=tokens_in, cut=cut)
        return self._anthropic_body(request, text, model=model, tokens_in=tokens_in, cut=cut)

    def _openai_body(
        self, request: Request, text: str, *, model: str, tokens_in: int, cut: bool
    ) -> dict:
        reasoning = self.reasoning_tokens if is_openai_reasoning_model(model) else 0
        tokens_out = reasoning + 1
        limit = request.body.get("max_completion_tokens") or request.body.get("max_tokens")
        if limit is not None and limit < tokens_out:
            # the reasoning ate the room the text needed: nothing visible is left
            text, cut, reasoning, tokens_out = "", True, min(reasoning, limit), limit
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "length" if cut else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": tokens_in,
                "completion_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
                "completion_tokens_details": {"reasoning_tokens": reasoning},
            },
        }

    def _anthropic_body(
        self, request: Request, text: str, *, model: str, tokens_in: int, cut: bool
    ) -> dict:
        content: list[dict] = []
        usage: dict = {"input_tokens": tokens_in, "output_tokens": 1}
        if (request.body.get("thinking") or {}).get("type") == "enabled":
            content.append(
                {
                    "type": "thinking",
                    "thinking": "The other player cooperated; C or D? D pays more now.",
                    "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
                }
            )
            usage = {
                "input_tokens": tokens_in,
                "output_tokens": self.reasoning_tokens + 1,
                "output_tokens_details": {"thinking_tokens": self.reasoning_tokens},
            }
        content.append({"type": "text", "text": text})
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": "max_tokens" if cut else "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }


@contextmanager
def wire_server(
    wire: Wire,
    *,
    default_reply: str = "C",
    answer: Callable[[Request], str] | None = None,
    reasoning_tokens: int = 64,
) -> Iterator[WireServer]:
    server = WireServer(
        wire, default_reply=default_reply, answer=answer, reasoning_tokens=reasoning_tokens
    ).start()
    try:
        yield server
    finally:
        server.stop()
