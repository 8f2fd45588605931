"""What the adapters send to reasoning models and with thinking, and what the gateway and the
cache record of a reply: reasoning tokens (priced once, as output), finish reason, truncation."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pdbench.providers.anthropic import STOP_REASONS, AnthropicProvider
from pdbench.providers.base import Usage
from pdbench.providers.cache import CachedReply, ResponseCache
from pdbench.providers.calls import CallContext, CallRequest
from pdbench.providers.gateway import ProviderGateway
from pdbench.providers.openai import OpenAIProvider
from pdbench.providers.openai_style import openai_finish_reason
from pdbench.providers.pricing import Price, PriceTable
from pdbench.providers.runtime import ProviderRuntime

PROMPTS = {"system": "You play.", "prompt": "C or D?", "temperature": 1.0, "max_tokens": 16}


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature():
    provider = OpenAIProvider(
        model="o3-mini",
        api_key="k",
        reasoning=True,
        reasoning_effort="low",
        reasoning_budget=1000,
        params={"seed": 5},
    )
    request = provider.request(**PROMPTS)
    assert {k: v for k, v in request.items() if k != "messages"} == {
        "model": "o3-mini",
        "seed": 5,
        "max_completion_tokens": 1016,
        "reasoning_effort": "low",
    }


def test_a_chat_model_gets_max_tokens_and_its_temperature():
    provider = OpenAIProvider(model="gpt-4o-mini", api_key="k", params={"top_p": 0.5})
    request = provider.request(**{**PROMPTS, "temperature": 0.0})
    assert (request["max_tokens"], request["temperature"], request["top_p"]) == (16, 0.0, 0.5)
    assert "max_completion_tokens" not in request and "reasoning_effort" not in request


def test_thinking_adds_its_budget_to_max_tokens_at_temperature_one():
    provider = AnthropicProvider(
        model="claude-sonnet-4-6",
        api_key="k",
        thinking_budget=2048,
        params={"top_p": 0.97, "stop_sequences": ["END"]},
    )
    request = provider.request(**{**PROMPTS, "temperature": 0.0})
    assert request["max_tokens"] == 2048 + 16
    assert request["extra_body"] == {
        "temperature": 1,
        "top_p": 0.97,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
    }
    assert request["stop_sequences"] == ["END"]


def test_without_thinking_claude_gets_the_agent_temperature_and_max_tokens():
    request = AnthropicProvider(model="c", api_key="k").request(**{**PROMPTS, "temperature": 0.3})
    assert (request["max_tokens"], request["extra_body"]) == (16, {"temperature": 0.3})


def test_finish_reasons_are_normalised():
    assert STOP_REASONS["max_tokens"] == "length" and STOP_REASONS["end_turn"] == "stop"
    assert STOP_REASONS["refusal"] == "content_filter"
    assert openai_finish_reason("function_call") == "tool_calls"
    assert openai_finish_reason("length") == "length" and openai_finish_reason(None) is None
    assert Usage(finish_reason="length").truncated
    assert not Usage(finish_reason="stop").truncated and not Usage().truncated


class ReasoningClient:
    """A provider whose every reply reasoned 2500 tokens and was cut at the limit."""

    def __init__(self) -> None:
        self.calls = 0
        self.last_usage: Usage | None = None

    def complete(self, *, system: str, prompt: str, temperature: float, max_tokens: int) -> str:
        self.calls += 1
        self.last_usage = Usage(
            tokens_in=1000, tokens_out=3000, tokens_reasoning=2500, finish_reason="length"
        )
        return "C"


def _gateway(client: ReasoningClient, records: list[dict], runtime: ProviderRuntime):
    return ProviderGateway(
        client=client,
        provider="openai",
        model="o3-mini",
        run_id="r",
        record=records.append,
        runtime=runtime,
        use_cache=True,
        request_settings={"reasoning": {"effort": None, "budget_tokens": 4096}},
    )


def test_reasoning_tokens_are_priced_once_and_replayed_from_the_cache(tmp_path: Path):
    prices = PriceTable({"o3-mini": Price(input_per_mtok=1.0, output_per_mtok=10.0)})
    runtime = ProviderRuntime(cache=ResponseCache(tmp_path / "c.sqlite"), prices=prices)
    client, records = ReasoningClient(), []
    for _ in range(2):
        _gateway(client, records, runtime).complete(
            CallRequest(**PROMPTS),
            context=CallContext(game="pd", phase="pd_round", agent="agent_a"),
            attempt=1,
            classify=lambda reply: ("ok", "token"),
        )
    assert client.calls == 1
    paid, replayed = records
    # completion tokens already hold the reasoning tokens: 3000 output tokens, not 5500
    assert paid["cost_usd"] == pytest.approx((1000 * 1.0 + 3000 * 10.0) / 1e6)
    for record in (paid, replayed):
        assert (record["tokens_out"], record["tokens_reasoning"]) == (3000, 2500)
        assert (record["finish_reason"], record["truncated"]) == ("length", True)
    assert (replayed["cache_hit"], replayed["cost_usd"]) == (True, 0.0)


def test_a_cache_file_from_before_gains_the_new_columns(tmp_path: Path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "create table responses (key text primary key, reply text not null, tokens_in"
            " integer, tokens_out integer, cost_usd real, created_at text not null default '')"
        )
        db.execute("insert into responses values ('old', 'C', 10, 1, 0.5, '')")
    cache = ResponseCache(path)
    assert cache.get("old") == CachedReply("C", Usage(10, 1, 0.5, None, None))
    cache.put(
        "new", CachedReply("D", Usage(10, 70, 0.25, tokens_reasoning=64, finish_reason="stop"))
    )
    assert cache.get("new") == CachedReply("D", Usage(10, 70, 0.25, 64, "stop"))
    cache.close()
    assert ResponseCache(path).get("new") == CachedReply("D", Usage(10, 70, 0.25, 64, "stop"))
