"""The OpenAI and Anthropic adapters, driven through the real SDKs against a local server."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from pdbench.errors import ConfigError, ProviderError
from pdbench.games import load_config
from pdbench.pd.experiment import experiment_runtime, run_experiment
from pdbench.pd.records import PDFiles, RoundRecord
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import CallRecord, RunFiles, RunManifest

from tests.conftest import edit, write_experiment
from tests.servers.wire import Step, WireServer, reply, wire_server

SENTINEL = "sk-sentinel-7f3a9c1e5b"
KEY_ENV = "PDBENCH_TEST_API_KEY"
WIRES = ["openai", "anthropic"]
TIMEOUT_S = 5.0
"""The transport timeout of the timeout tests: a reply the server holds never beats it, and a
reply it sends at once does, however busy the machine."""


@pytest.fixture(params=WIRES)
def server(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server(request.param) as running:
        yield running


def llm_config(
    project: Path, server: WireServer, *, rounds: int = 3, transport: dict | None = None, **agent
) -> Path:
    overrides = {
        "provider": server.wire,
        "model": f"{server.wire}-test-model",
        "base_url": server.base_url,
        "api_key_env": KEY_ENV,
        "transport": {
            "timeout_s": 2.0,
            "max_retries": 2,
            "backoff_base_s": 0.5,
            **(transport or {}),
        },
        **agent,
    }
    return write_experiment(
        project / "configs",
        replicates=1,
        max_concurrency=1,
        horizon={"type": "fixed", "n": rounds},
        conditions=[
            {
                "name": "llm_vs_tft",
                "agent_a": {"ref": "agents/llm_default.yaml", "overrides": overrides},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    )


def play(config: Path, project: Path, *, waits: list[float] | None = None, **options):
    loaded = load_config(config)
    runtime = experiment_runtime(loaded.config, use_cache=options.pop("use_cache", True))
    runtime.sleep = (waits if waits is not None else []).append
    return run_experiment(loaded, output_dir=project / "run", runtime=runtime, **options)


def lines(project: Path, name: str) -> list[dict]:
    return list(read_jsonl(project / "run" / name))


def manifest(project: Path) -> RunManifest:
    return RunManifest.model_validate_json((project / "run" / RunFiles.MANIFEST).read_text())


def test_a_normal_game_writes_valid_rows(project: Path, server: WireServer):
    result = play(llm_config(project, server), project)
    assert result.manifest.status == "completed"
    rounds = [RoundRecord.model_validate(r) for r in lines(project, PDFiles.ROUNDS)]
    calls = [CallRecord.model_validate(c) for c in lines(project, RunFiles.CALLS)]
    assert [r.agent_a_action for r in rounds] == ["C", "C", "C"]
    assert [(c.status, c.attempt, c.transport_retries, c.cache_hit) for c in calls] == [
        ("ok", 1, 0, False)
    ] * 3
    assert all(c.tokens_in and c.tokens_in > 20 and c.tokens_out == 1 for c in calls)
    assert server.hits == 3
    first = server.requests[0]
    assert first.body["model"] == f"{server.wire}-test-model"
    assert first.body["max_tokens"] == 16 and first.body["temperature"] == 0
    if server.wire == "openai":
        assert first.path == "/v1/chat/completions"
        assert first.headers["authorization"] == f"Bearer {SENTINEL}"
        assert [m["role"] for m in first.body["messages"]] == ["system", "user"]
    else:
        assert first.path == "/v1/messages"
        sent = first.headers.get("x-api-key") or first.headers["authorization"].split()[-1]
        assert sent == SENTINEL  # the header differs between SDK releases
        assert first.body["system"].startswith("You are playing a repeated game")
    assert first.headers.get("x-stainless-retry-count", "0") == "0"


def test_429_with_retry_after_waits_as_told_then_succeeds(project: Path, server: WireServer):
    server.then(Step(status=429, headers={"retry-after": "7"}))
    waits: list[float] = []
    play(llm_config(project, server), project, waits=waits)
    calls = lines(project, RunFiles.CALLS)
    assert waits == [7.0]
    assert [c["transport_retries"] for c in calls] == [1, 0, 0]
    assert [c["attempt"] for c in calls] == [1, 1, 1]
    assert server.hits == 4
    assert manifest(project).status == "completed"


def test_500_then_success_backs_off_with_jitter(project: Path, server: WireServer):
    server.then(Step(status=500), Step(status=503))
    waits: list[float] = []
    play(llm_config(project, server), project, waits=waits)
    calls = lines(project, RunFiles.CALLS)
    assert calls[0]["transport_retries"] == 2 and calls[0]["status"] == "ok"
    # base 0.5 s: first wait in [0.25, 0.5], second in [0.5, 1.0]
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0


def test_a_reply_slower_than_the_timeout_is_retried(project: Path, server: WireServer):
    # the slow reply never comes while the client waits, however busy the machine: the
    # timeout, not a race between two delays, decides
    never = threading.Event()
    server.then(Step(reply="C", hold=never))
    try:
        play(llm_config(project, server, transport={"timeout_s": TIMEOUT_S}), project)
    finally:
        never.set()
    calls = lines(project, RunFiles.CALLS)
    assert [c["transport_retries"] for c in calls] == [1, 0, 0]
    assert manifest(project).status == "completed"


def test_timeouts_beyond_the_retries_fail_the_run_and_keep_what_was_written(
    project: Path, server: WireServer
):
    never = threading.Event()
    server.then(reply("C"), Step(reply="C", hold=never))
    config = llm_config(project, server, transport={"timeout_s": TIMEOUT_S, "max_retries": 0})
    try:
        with pytest.raises(ProviderError) as caught:
            play(config, project)
    finally:
        never.set()
    message = str(caught.value)
    assert "\n" not in message and "timeout" in message and SENTINEL not in message
    assert manifest(project).status == "failed"
    assert [r["round_index"] for r in lines(project, PDFiles.ROUNDS)] == [1]
    calls = lines(project, RunFiles.CALLS)
    assert [(c["round_index"], c["status"]) for c in calls] == [(1, "ok"), (2, "error")]
    assert calls[1]["error"].startswith("timeout: ")
    assert lines(project, PDFiles.MATCHES) == []


def test_a_malformed_body_is_transient(project: Path, server: WireServer):
    server.then(Step(raw_body=b'{"choices": [tru'), Step(raw_body=b"<html>bad gateway</html>"))
    play(llm_config(project, server), project)
    calls = lines(project, RunFiles.CALLS)
    assert calls[0]["transport_retries"] == 2 and calls[0]["status"] == "ok"
    assert manifest(project).status == "completed"


def test_a_reply_that_is_not_c_or_d_is_reprompted(project: Path, server: WireServer):
    server.then(reply("I would like to cooperate, I think."), reply("D"))
    play(llm_config(project, server), project)
    calls = lines(project, RunFiles.CALLS)
    assert [(c["round_index"], c["attempt"], c["status"]) for c in calls[:3]] == [
        (1, 1, "invalid"),
        (1, 2, "ok"),
        (2, 1, "ok"),
    ]
    assert all(c["transport_retries"] == 0 for c in calls)
    first = lines(project, PDFiles.ROUNDS)[0]
    assert (first["agent_a_action"], first["agent_a_attempts"], first["agent_a_valid"]) == (
        "D",
        2,
        True,
    )
    second_prompt = server.requests[1].body["messages"][-1]["content"]
    assert second_prompt.startswith("Your previous reply was not a valid move.")


def test_a_bad_key_fails_at_once_without_leaking_it(project: Path, server: WireServer):
    server.then(Step(status=401, echo_key=True))
    waits: list[float] = []
    with pytest.raises(ProviderError) as caught:
        play(llm_config(project, server), project, waits=waits)
    assert waits == [] and server.hits == 1
    assert "not authorised (401)" in str(caught.value)
    assert SENTINEL not in str(caught.value) and "***" in str(caught.value)
    assert manifest(project).status == "failed"
    for path in (project / "run").iterdir():
        assert SENTINEL not in path.read_text(), path.name
    assert json.dumps(lines(project, RunFiles.CALLS)).count("***") >= 1


def test_a_reply_that_echoes_the_key_is_stored_masked(project: Path, server: WireServer):
    """A prompt injection or a chatty proxy can make a model repeat the key: it reaches
    neither the round records nor the response cache."""
    server.then(reply(f"my key is {SENTINEL}"), reply("C"), reply("C"), reply("C"))
    config = llm_config(project, server)
    edit(config, "replicates: 1", f"replicates: 1\ncache_path: {project / 'cache.sqlite'}")
    play(config, project)
    first = lines(project, PDFiles.ROUNDS)[0]
    assert first["raw_responses"]["agent_a"][0] == "my key is ***"
    for path in [*(project / "run").iterdir(), project / "cache.sqlite"]:
        assert SENTINEL.encode() not in path.read_bytes(), path.name


def test_an_unknown_model_is_fatal(project: Path, server: WireServer):
    server.then(Step(status=404))
    with pytest.raises(ProviderError, match=r"not found \(404\)"):
        play(llm_config(project, server), project)
    assert server.hits == 1


# --- LiteLLM, through its ``openai/<model>`` route and ``api_base`` -------------------------


@pytest.fixture
def openai_wire(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server("openai") as running:
        yield running


def litellm_config(project: Path, server: WireServer) -> Path:
    config = llm_config(project, server, provider="litellm", model="openai/pdbench-test-model")
    text = config.read_text()
    config.write_text(text.replace("provider: openai", "provider: litellm"))
    return config


def test_litellm_plays_a_normal_game(project: Path, openai_wire: WireServer):
    result = play(litellm_config(project, openai_wire), project)
    assert result.manifest.status == "completed"
    rounds = [RoundRecord.model_validate(r) for r in lines(project, PDFiles.ROUNDS)]
    calls = [CallRecord.model_validate(c) for c in lines(project, RunFiles.CALLS)]
    assert [r.agent_a_action for r in rounds] == ["C", "C", "C"]
    assert [(c.provider, c.status, c.transport_retries) for c in calls] == [
        ("litellm", "ok", 0)
    ] * 3
    assert all(c.tokens_in and c.tokens_in > 20 and c.tokens_out == 1 for c in calls)
    first = openai_wire.requests[0]
    assert first.path == "/v1/chat/completions"
    assert first.body["model"] == "pdbench-test-model"  # LiteLLM strips its route prefix
    assert first.headers["authorization"] == f"Bearer {SENTINEL}"
    assert [m["role"] for m in first.body["messages"]] == ["system", "user"]
    assert openai_wire.hits == 3  # LiteLLM's own retries are off


def test_litellm_429_waits_as_told_then_succeeds(project: Path, openai_wire: WireServer):
    openai_wire.then(Step(status=429, headers={"retry-after": "7"}))
    waits: list[float] = []
    play(litellm_config(project, openai_wire), project, waits=waits)
    calls = lines(project, RunFiles.CALLS)
    assert waits == [7.0]
    assert [c["transport_retries"] for c in calls] == [1, 0, 0]
    assert openai_wire.hits == 4
    assert manifest(project).status == "completed"


def test_a_pool_of_servers_takes_the_calls_in_turn(project: Path, server: WireServer):
    with wire_server(server.wire) as second:
        pool = [server.base_url, second.base_url]
        result = play(llm_config(project, server, rounds=4, base_url=pool), project)
    assert result.manifest.status == "completed"
    assert (server.hits, second.hits) == (2, 2)
    assert [c["status"] for c in lines(project, RunFiles.CALLS)] == ["ok"] * 4


def test_a_pool_names_each_server_once(project: Path, server: WireServer):
    for pool, message in (([], "at least one URL"), ([server.base_url] * 2, "each URL once")):
        with pytest.raises(ConfigError, match=message):
            load_config(llm_config(project, server, base_url=pool))
