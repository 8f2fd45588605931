"""Every shape of reply a misbehaving server sends ends as one classified failure.

Each shape is served by a local server speaking the vendor's wire protocol, to the real SDKs
(and LiteLLM): a 429 whose ``Retry-After`` is not a finite number, an empty ``choices`` list
(an Anthropic message without content), an HTML page with status 200, a body that is not
UTF-8, and a body dripped one byte at a time for ever. Each is a transient failure: retried
(after a finite, bounded wait), and when it persists the call ends with a ``calls.jsonl`` line
saying why and one ``ProviderError`` line, never an internal error.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pdbench.errors import ProviderError
from pdbench.providers.failures import MAX_RETRY_AFTER_S

from tests.integration.test_real_providers import KEY_ENV, SENTINEL, lines, llm_config, play
from tests.servers.wire import Step, WireServer, wire_server

ROUTES = ["openai", "anthropic", "litellm"]
EMPTY = {
    "openai": b'{"id": "c", "object": "chat.completion", "created": 0, "choices": []}',
    "anthropic": b'{"id": "m", "type": "message", "role": "assistant", "model": "m"}',
}


def malformed(wire: str) -> dict[str, Step]:
    return {
        "no choices": Step(raw_body=EMPTY[wire]),
        "an HTML page": Step(
            raw_body=b"<html><h1>502 Bad Gateway</h1></html>", content_type="text/html"
        ),
        "a body that is not UTF-8": Step(raw_body=b'{"choices": "\xff\xfe\xfa"}'),
    }


@pytest.fixture(params=ROUTES)
def route(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    wire = "anthropic" if request.param == "anthropic" else "openai"
    with wire_server(wire) as server:
        yield request.param, server


def config(project: Path, route: tuple[str, WireServer], **transport: float) -> Path:
    name, server = route
    agent = (
        {"provider": "litellm", "model": "openai/pdbench-test-model"} if name == "litellm" else {}
    )
    path = llm_config(project, server, rounds=1, transport=transport, **agent)
    if name == "litellm":
        path.write_text(path.read_text().replace("provider: openai", "provider: litellm"))
    return path


@pytest.mark.parametrize("retry_after", ["nan", "1e999", "-inf", "soon"])
def test_a_429_with_a_retry_after_that_is_no_number_waits_a_bounded_time(
    project: Path, route: tuple[str, WireServer], retry_after: str
):
    _, server = route
    server.then(Step(status=429, headers={"retry-after": retry_after}))
    waits: list[float] = []
    result = play(config(project, route), project, waits=waits)
    assert result.manifest.status == "completed"
    assert len(waits) == 1 and math.isfinite(waits[0]) and 0 <= waits[0] <= MAX_RETRY_AFTER_S
    assert [(c["status"], c["transport_retries"]) for c in lines(project, "calls.jsonl")] == [
        ("ok", 1)
    ]


def test_a_retry_after_beyond_the_cap_is_cut_to_it(project: Path, route: tuple[str, WireServer]):
    _, server = route
    server.then(Step(status=503, headers={"retry-after": "86400"}))
    waits: list[float] = []
    play(config(project, route), project, waits=waits)
    assert waits == [MAX_RETRY_AFTER_S]


@pytest.mark.parametrize("shape", ["no choices", "an HTML page", "a body that is not UTF-8"])
def test_a_malformed_reply_is_retried(project: Path, route: tuple[str, WireServer], shape: str):
    _, server = route
    server.then(malformed(server.wire)[shape])
    result = play(config(project, route), project)
    assert result.manifest.status == "completed"
    calls = lines(project, "calls.jsonl")
    assert [(c["status"], c["transport_retries"]) for c in calls] == [("ok", 1)]
    assert server.hits == 2


@pytest.mark.parametrize("shape", ["no choices", "an HTML page", "a body that is not UTF-8"])
def test_a_malformed_reply_that_persists_ends_as_one_recorded_line(
    project: Path, route: tuple[str, WireServer], shape: str
):
    _, server = route
    bad = malformed(server.wire)[shape]
    server.then(bad, bad)
    with pytest.raises(ProviderError) as caught:
        play(config(project, route, max_retries=1), project)
    message = str(caught.value)
    assert "\n" not in message and "after 1 retry:" in message
    assert "AttributeError" not in message and "internal error" not in message
    (call,) = lines(project, "calls.jsonl")
    assert call["status"] == "error" and call["transport_retries"] == 1
    # retried once, so classified transient; LiteLLM calls an HTML page a server error itself
    assert call["error"].startswith(("malformed reply", "server error (500)"))
    assert server.hits == 2


def test_a_body_dripped_for_ever_ends_as_a_timeout(project: Path, route: tuple[str, WireServer]):
    _, server = route
    server.then(Step(drip=True))
    with pytest.raises(ProviderError) as caught:
        play(config(project, route, timeout_s=1.0, max_retries=0), project)
    assert "timeout" in str(caught.value).lower()
    (call,) = lines(project, "calls.jsonl")
    assert call["status"] == "error" and call["error"].lower().startswith("timeout")
