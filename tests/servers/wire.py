"""A local HTTP server speaking the OpenAI chat-completions and Anthropic messages wire
formats, for driving the real SDKs through ``base_url`` without a network.

Each request takes the next step of a script (a status with headers, a delay, a malformed
body, a reply text); when the script runs out the server replies ``default_reply``. Every
request is recorded (path, headers, JSON body).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Literal

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


def reply(text: str) -> Step:
    return Step(reply=text)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict


class WireServer:
    """The server; ``base_url`` is what the SDK gets."""

    def __init__(self, wire: Wire, *, default_reply: str = "C") -> None:
        self.wire = wire
        self.default_reply = default_reply
        self.script: list[Step] = []
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

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
        with self._lock:
            self.requests.append(request)
            return self.script.pop(0) if self.script else Step(reply=self.default_reply)

    def start(self) -> WireServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                request = Request(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, payload
                )
                step = server._next(request)
                if step.delay_s:
                    time.sleep(step.delay_s)
                try:
                    self._answer(step, request)
                except (BrokenPipeError, ConnectionResetError):
                    return

            def _answer(self, step: Step, request: Request) -> None:
                if step.raw_body is not None:
                    self._send(200, step.raw_body, step.headers)
                elif step.status is not None:
                    key = request.headers.get("x-api-key") or request.headers.get(
                        "authorization", ""
                    ).removeprefix("Bearer ")
                    message = f"failure {step.status}" + (
                        f" for key {key}" if step.echo_key else ""
                    )
                    if server.wire == "openai":
                        body = {"error": {"message": message, "type": "error", "code": None}}
                    else:
                        body = {"type": "error", "error": {"type": "api_error", "message": message}}
                    self._send(step.status, json.dumps(body).encode(), step.headers)
                else:
                    self._send(
                        200,
                        json.dumps(server._body(request, step.reply or "")).encode(),
                        step.headers,
                    )

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def _body(self, request: Request, text: str) -> dict:
        model = request.body.get("model", "?")
        tokens_in = sum(len(str(m.get("content", ""))) for m in request.body.get("messages", []))
        tokens_in += len(str(request.body.get("system", "")))
        tokens_in //= 4
        if self.wire == "openai":
            return {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": 1,
                    "total_tokens": tokens_in + 1,
                },
            }
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": 1},
        }


@contextmanager
def wire_server(wire: Wire, *, default_reply: str = "C") -> Iterator[WireServer]:
    server = WireServer(wire, default_reply=default_reply).start()
    try:
        yield server
    finally:
        server.stop()
