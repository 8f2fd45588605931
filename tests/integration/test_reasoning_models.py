"""Reasoning models, extended thinking and pass-through params, through the real SDKs against
the loopback servers, which refuse (HTTP 400, the real error bodies) what the real APIs
refuse: ``max_tokens`` or a temperature other than 1 for an OpenAI reasoning model, a
temperature other than 1 or a ``max_tokens`` not above the budget for Claude with thinking."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from random import Random

import anthropic
import openai
import pytest
import yaml
from pdbench.arena.mock_player import ArenaMockPlayer
from pdbench.arena.runner import run_arena
from pdbench.errors import ConfigError, ProviderError
from pdbench.games import load_config
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import CallRecord, RunFiles

from tests.conftest import write_arena
from tests.integration.test_real_providers import KEY_ENV, SENTINEL, lines, llm_config, play
from tests.servers.wire import Request, Step, WireServer, reply, wire_server
from tests.unit.test_arena_mock import settings_of

THINKING = {"budget_tokens": 2048}


@pytest.fixture
def openai_wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireServer]:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server("openai") as running:
        yield running


@pytest.fixture
def anthropic_wire(monkeypatch: pytest.MonkeyPatch) -> Iterator[WireServer]:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server("anthropic") as running:
        yield running


def calls(project: Path) -> list[CallRecord]:
    return [CallRecord.model_validate(c) for c in lines(project, RunFiles.CALLS)]


def with_fields(config: Path, **fields: object) -> Path:
    """``config`` with top-level ``fields`` set (the experiment's, not the agent's)."""
    experiment = yaml.safe_load(config.read_text()) | fields
    config.write_text(yaml.safe_dump(experiment, sort_keys=False))
    return config


def agent_a(config: Path, **fields: object) -> Path:
    """``config`` with ``fields`` set in the overrides of its LLM agent."""
    experiment = yaml.safe_load(config.read_text())
    experiment["conditions"][0]["agent_a"]["overrides"].update(fields)
    config.write_text(yaml.safe_dump(experiment, sort_keys=False))
    return config


# --- OpenAI reasoning models ---------------------------------------------------------------


@pytest.mark.parametrize("model", ["o3-mini", "gpt-5-mini"])
def test_a_reasoning_model_plays_a_match_without_a_refused_request(
    project: Path, openai_wire: WireServer, model: str
):
    config = llm_config(project, openai_wire, model=model, reasoning_effort="low")
    loaded = load_config(config)
    assert any(f"{model} samples at temperature 1 only" in w for w in loaded.warnings)
    result = play(config, project)
    assert result.manifest.status == "completed"
    assert openai_wire.refused == 0 and openai_wire.hits == 3
    for request in openai_wire.requests:
        body = request.body
        assert "max_tokens" not in body and "temperature" not in body
        assert body["max_completion_tokens"] == 16 + 4096  # the reply and the reasoning budget
        assert body["reasoning_effort"] == "low"
    assert [r["agent_a_action"] for r in lines(project, PDFiles.ROUNDS)] == ["C", "C", "C"]
    recorded = calls(project)
    assert [(c.status, c.finish_reason, c.truncated) for c in recorded] == [
        ("ok", "stop", False)
    ] * 3
    assert all((c.tokens_out, c.tokens_reasoning) == (65, 64) for c in recorded)
    assert result.manifest.config["conditions"][0]["agent_a"]["temperature"] == 1.0


def test_the_server_refuses_max_tokens_and_temperature_as_openai_does(
    project: Path, openai_wire: WireServer
):
    # reasoning: false makes pdbench send max_tokens and temperature 0, as to a chat model
    config = llm_config(project, openai_wire, model="o3-mini", reasoning=False)
    with pytest.raises(ProviderError) as caught:
        play(config, project)
    message = str(caught.value)
    assert "\n" not in message and "request rejected (400)" in message
    assert "'max_tokens' is not supported with this model" in message
    assert openai_wire.refused == 1
    client = openai.OpenAI(api_key="k", base_url=openai_wire.base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(
            model="o3-mini",
            messages=[{"role": "user", "content": "C or D?"}],
            max_completion_tokens=100,
            temperature=0.0,
        )
    assert refused.value.status_code == 400 and refused.value.code == "unsupported_value"
    assert refused.value.body["message"] == (  # type: ignore[index]
        "Unsupported value: 'temperature' does not support 0.0 with this model. "
        "Only the default (1) value is supported."
    )
    assert refused.value.body["param"] == "temperature"  # type: ignore[index]


def test_reasoning_true_sends_a_model_the_table_does_not_know_as_a_reasoning_model(
    project: Path, openai_wire: WireServer
):
    # the server treats gpt-4o-mini as a chat model, which refuses reasoning_effort
    config = llm_config(
        project, openai_wire, model="gpt-4o-mini", reasoning=True, reasoning_effort="high"
    )
    with pytest.raises(ProviderError, match="'reasoning_effort' is not supported"):
        play(config, project)
    body = openai_wire.requests[0].body
    assert body["max_completion_tokens"] == 16 + 4096 and "temperature" not in body


def test_a_reply_cut_by_the_reasoning_is_recorded_truncated(project: Path, openai_wire: WireServer):
    # 64 reasoning tokens + 1 of text do not fit in max_completion_tokens = 16 + 8
    config = llm_config(project, openai_wire, rounds=1, model="o4-mini", reasoning_budget_tokens=8)
    play(config, project)
    assert openai_wire.requests[0].body["max_completion_tokens"] == 24
    recorded = calls(project)
    assert [(c.attempt, c.status, c.finish_reason, c.truncated) for c in recorded] == [
        (1, "invalid", "length", True),
        (2, "invalid", "length", True),
        (3, "invalid", "length", True),
    ]
    assert all((c.tokens_out, c.tokens_reasoning) == (24, 24) for c in recorded)
    (first,) = lines(project, PDFiles.ROUNDS)
    assert (first["agent_a_action"], first["agent_a_valid"]) == ("D", False)  # the fallback


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_reply_cut_at_the_limit_is_invalid_even_when_it_reads(
    project: Path, monkeypatch: pytest.MonkeyPatch, wire: str
):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server(wire) as server:  # type: ignore[arg-type]
        server.then(Step(reply="C", cut=True))
        play(llm_config(project, server, rounds=2), project)
    recorded = calls(project)
    # the cut "C" is not what the model meant to say: invalid, and asked again
    assert [(c.round_index, c.status, c.finish_reason, c.truncated) for c in recorded] == [
        (1, "invalid", "length", True),
        (1, "ok", "stop", False),
        (2, "ok", "stop", False),
    ]
    first = lines(project, PDFiles.ROUNDS)[0]
    assert (first["agent_a_valid"], first["agent_a_attempts"], first["agent_a_truncated"]) == (
        True,
        2,
        True,
    )


def test_a_cached_replay_keeps_reasoning_tokens_and_truncation(
    project: Path, openai_wire: WireServer
):
    openai_wire.then(reply("C"), Step(reply="D", cut=True))
    config = with_fields(llm_config(project, openai_wire, model="o3"), cache_path="cache.sqlite")
    play(config, project)
    first = lines(project, RunFiles.CALLS)
    play(config, project, overwrite=True)
    again = lines(project, RunFiles.CALLS)
    assert openai_wire.hits == 4  # the replay made no call
    assert [c["cache_hit"] for c in again] == [True] * 4
    kept = ("tokens_in", "tokens_out", "tokens_reasoning", "finish_reason", "truncated")
    assert [{k: c[k] for k in kept} for c in again] == [{k: c[k] for k in kept} for c in first]
    # the cut D of round 2 is read as invalid on replay too, and asked again
    assert [(c["truncated"], c["status"]) for c in again] == [
        (False, "ok"),
        (True, "invalid"),
        (False, "ok"),
        (False, "ok"),
    ]
    assert {c["tokens_reasoning"] for c in again} == {64}


# --- Anthropic extended thinking -----------------------------------------------------------


def test_claude_with_thinking_plays_at_temperature_one_with_room_for_the_answer(
    project: Path, anthropic_wire: WireServer
):
    config = llm_config(project, anthropic_wire, model="claude-sonnet-4-6", thinking=THINKING)
    result = play(config, project)
    assert result.manifest.status == "completed"
    assert anthropic_wire.refused == 0 and anthropic_wire.hits == 3
    for request in anthropic_wire.requests:
        body = request.body
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
        assert body["temperature"] == 1
        assert body["max_tokens"] == 2048 + 16
    # the thinking block comes first and mentions both moves; the answer is the text block
    assert [r["agent_a_action"] for r in lines(project, PDFiles.ROUNDS)] == ["C", "C", "C"]
    recorded = calls(project)
    assert all(c.status == "ok" and c.parse_rule == "token" for c in recorded)
    assert all((c.tokens_out, c.tokens_reasoning) == (65, 64) for c in recorded)
    assert all((c.finish_reason, c.truncated) == ("stop", False) for c in recorded)


def test_the_server_refuses_what_anthropic_refuses_with_thinking(anthropic_wire: WireServer):
    client = anthropic.Anthropic(api_key="k", base_url=anthropic_wire.base_url, max_retries=0)
    request = {
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": "C or D?"}],
    }
    thinking = {"type": "enabled", "budget_tokens": 2048}
    with pytest.raises(anthropic.BadRequestError, match="may only be set to 1 when thinking"):
        client.messages.create(
            **request, max_tokens=4096, extra_body={"thinking": thinking, "temperature": 0}
        )
    with pytest.raises(
        anthropic.BadRequestError, match=r"must be greater than `thinking\.budget_tokens`"
    ):
        client.messages.create(**request, max_tokens=2048, extra_body={"thinking": thinking})
    answered = client.messages.create(**request, max_tokens=2049, extra_body={"thinking": thinking})
    assert [block.type for block in answered.content] == ["thinking", "text"]
    assert answered.content[0].signature  # type: ignore[union-attr]
    assert anthropic_wire.refused == 2


# --- params --------------------------------------------------------------------------------


def test_openai_params_reach_the_server(project: Path, openai_wire: WireServer):
    params = {
        "seed": 7,
        "top_p": 0.5,
        "stop": ["\n\n"],
        "frequency_penalty": 0.25,
        "presence_penalty": -0.5,
        "extra_body": {"top_k": 20},
    }
    play(llm_config(project, openai_wire, rounds=1, params=params), project)
    body = openai_wire.requests[0].body
    assert {k: body[k] for k in ("seed", "top_p", "stop", "frequency_penalty")} == {
        "seed": 7,
        "top_p": 0.5,
        "stop": ["\n\n"],
        "frequency_penalty": 0.25,
    }
    assert (body["presence_penalty"], body["top_k"]) == (-0.5, 20)
    assert (body["temperature"], body["max_tokens"]) == (0, 16)


def test_anthropic_params_reach_the_server(project: Path, anthropic_wire: WireServer):
    params = {"top_p": 0.9, "top_k": 40, "stop_sequences": ["END"]}
    play(llm_config(project, anthropic_wire, rounds=1, params=params), project)
    body = anthropic_wire.requests[0].body
    assert (body["top_p"], body["top_k"], body["stop_sequences"]) == (0.9, 40, ["END"])


def test_litellm_sends_a_reasoning_model_its_parameters_and_params(
    project: Path, openai_wire: WireServer
):
    config = llm_config(
        project,
        openai_wire,
        rounds=2,
        provider="litellm",
        model="openai/o3-mini",
        reasoning_effort="medium",
        params={"seed": 11},
    )
    config.write_text(config.read_text().replace("provider: openai", "provider: litellm"))
    result = play(config, project)
    assert result.manifest.status == "completed" and openai_wire.refused == 0
    body = openai_wire.requests[0].body
    assert body["model"] == "o3-mini" and body["seed"] == 11
    assert body["max_completion_tokens"] == 16 + 4096 and body["reasoning_effort"] == "medium"
    assert "max_tokens" not in body and "temperature" not in body
    assert [(c.tokens_reasoning, c.finish_reason) for c in calls(project)] == [(64, "stop")] * 2


def test_params_change_the_cache_key(project: Path, openai_wire: WireServer):
    config = llm_config(project, openai_wire, rounds=1, params={"seed": 1})
    with_fields(config, cache_path="cache.sqlite")
    play(config, project)
    play(agent_a(config, params={"seed": 2}), project, overwrite=True)
    assert openai_wire.hits == 2  # another seed is another request, not a cached reply
    assert [r.body["seed"] for r in openai_wire.requests] == [1, 2]


def test_an_unknown_params_key_is_a_one_line_config_error(project: Path, openai_wire: WireServer):
    config = llm_config(project, openai_wire, params={"best_of": 3})
    with pytest.raises(ConfigError) as caught:
        load_config(config)
    assert str(caught.value) == (
        f"{config}: conditions[0].agent_a.params: unknown parameter 'best_of' for provider "
        "openai (allowed: extra_body, frequency_penalty, presence_penalty, seed, stop, top_p)"
    )
    assert openai_wire.hits == 0


# --- the arena ----------------------------------------------------------------------------


def _mock_arena_answer(request: Request) -> str:
    """A mock arena player behind the wire: a real SDK gets sensible replies in every phase."""
    player = ArenaMockPlayer(
        settings=settings_of(
            answer_skill=0.7,
            question_quality=0.6,
            judge_leniency=0.0,
            judge_noise=0.0,
            favour_bonus=0.0,
            signature="Hope this helps.",
        )
    )
    return player.reply(system=request.system, prompt=request.prompt, rng=Random(request.prompt))


def test_an_arena_with_a_reasoning_and_a_thinking_player(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with (
        wire_server("openai", answer=_mock_arena_answer) as openai_server,
        wire_server("anthropic", answer=_mock_arena_answer) as anthropic_server,
    ):
        access = {"api_key_env": KEY_ENV, "transport": {"timeout_s": 5.0, "max_retries": 0}}
        players = [
            {"name": "reasoner", "provider": "openai", "model": "o4-mini",
             "base_url": openai_server.base_url, **access},
            {"name": "thinker", "provider": "anthropic", "model": "claude-sonnet-4-6",
             "base_url": anthropic_server.base_url, "thinking": {"budget_tokens": 1024}, **access},
            {"name": "chatter", "provider": "openai", "model": "gpt-4o-mini",
             "base_url": openai_server.base_url, **access},
        ]  # fmt: skip
        path = write_arena(
            project / "configs",
            players=[{"ref": "agents/arena_player.yaml", "overrides": p} for p in players],
            max_tokens={"generate": 600, "rate": 8, "answer": 200, "judge": 8},
        )
        result = run_arena(load_config(path), output_dir="out")
    assert result.manifest.status == "completed"
    assert openai_server.refused == 0 and anthropic_server.refused == 0
    recorded = list(read_jsonl(project / "out" / RunFiles.CALLS))
    assert {c["status"] for c in recorded} == {"ok"}
    by_player = {p: [c for c in recorded if c["agent"] == p] for p in ("reasoner", "thinker")}
    assert {c["tokens_reasoning"] for c in by_player["reasoner"]} == {64}
    assert {c["tokens_reasoning"] for c in by_player["thinker"]} == {64}
    assert {c["tokens_reasoning"] for c in recorded if c["agent"] == "chatter"} == {0}
    limits = {"generate": 600, "rate": 8, "answer": 200, "judge": 8}
    sent = {
        (r.body["model"], r.body.get("max_completion_tokens", r.body.get("max_tokens")))
        for r in (*openai_server.requests, *anthropic_server.requests)
    }
    assert {(m, n) for m, n in sent if m == "o4-mini"} == {
        ("o4-mini", limit + 4096) for limit in limits.values()
    }
    assert {(m, n) for m, n in sent if m == "claude-sonnet-4-6"} == {
        ("claude-sonnet-4-6", limit + 1024) for limit in limits.values()
    }
