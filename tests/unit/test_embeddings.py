"""The embedders of :mod:`pdbench.providers.embeddings` without a network."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest
from pdbench.providers.embeddings import MockEmbedder, ngram_vector, pooled


def test_a_text_of_one_trigram_is_a_unit_vector_on_one_coordinate():
    # "ab" padded is " ab ": two 3-grams, " ab" and "ab ", each adding 1 to one coordinate
    vector = ngram_vector("AB", dim=64)
    assert sorted(x for x in vector if x) in ([1 / math.sqrt(2)] * 2, [1.0])
    assert math.isclose(sum(x * x for x in vector), 1.0)
    assert ngram_vector("", dim=8) == [0.0] * 8


def test_the_mock_is_deterministic_and_paraphrases_are_closer_than_unrelated_texts():
    embed = MockEmbedder(model="mock-ngram", dim=256).embed
    first, again = (
        embed(["What is the key idea?"]).vectors,
        embed(["What is the key idea?"]).vectors,
    )
    assert first == again
    a, b, c = embed(
        ["Why does claim 12 hold in logic?", "So, why does claim 12 hold in logic?",
         "Describe a sunset over the sea."]
    ).vectors  # fmt: skip
    cos = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731 (unit vectors)
    assert cos(a, b) > 0.85 > 0.5 > cos(a, c)


def test_per_token_vectors_are_averaged_and_a_flat_vector_is_kept():
    assert pooled([[1.0, 2.0], [3.0, 6.0]]) == [2.0, 4.0]
    assert pooled([0.5, -0.5]) == [0.5, -0.5]
    with pytest.raises(ValueError, match="different lengths"):
        pooled([[1.0, 2.0], [3.0]])


def test_litellm_embeddings_are_read_in_index_order_with_their_tokens(monkeypatch):
    import litellm
    from pdbench.arena.diversity_config import EmbeddingConfig
    from pdbench.providers.embeddings import build_embedder

    seen: dict = {}

    reply = SimpleNamespace(
        data=[{"index": 1, "embedding": [0.0, 1.0]}, {"index": 0, "embedding": [1.0, 0.0]}],
        usage=SimpleNamespace(prompt_tokens=7),
    )

    def embedding(**kwargs):
        seen.update(kwargs)
        return reply

    monkeypatch.setattr(litellm, "embedding", embedding)
    config = EmbeddingConfig(provider="litellm", model="text-embedding-3-small",
                             base_url="http://127.0.0.1:9/v1")  # fmt: skip
    result = build_embedder(config).embed(["first", "second"])
    assert result.vectors == [[1.0, 0.0], [0.0, 1.0]] and result.tokens_in == 7
    assert seen["input"] == ["first", "second"] and seen["api_base"] == "http://127.0.0.1:9/v1"


def test_a_transient_failure_is_retried_and_counted():
    import random

    from pdbench.providers.embeddings import _RemoteEmbedder
    from pdbench.providers.failures import Failure
    from pdbench.providers.retry import RetryPolicy

    calls = []

    def request(texts):
        calls.append(texts)
        if len(calls) == 1:
            raise TimeoutError("slow")
        return [[1.0] for _ in texts], 3

    embedder = _RemoteEmbedder(
        provider="openai", model="m", request=request,
        classify=lambda exc: Failure(True, "timeout"), policy=RetryPolicy(max_retries=2),
        sleep=lambda seconds: None, rng=random.Random(0),
    )  # fmt: skip
    result = embedder.embed(["a", "b"])
    assert result.vectors == [[1.0], [1.0]] and result.transport_retries == 1 and len(calls) == 2


class _CountingEmbedder:
    """An OpenAI-style embedder without a network: 2-d vectors, 7 tokens per text."""

    provider = "openai"
    model = "text-embedding-3-small"

    def __init__(self) -> None:
        self.requests: list[list[str]] = []

    def embed(self, texts):
        from pdbench.providers.embeddings import EmbedResult

        self.requests.append(list(texts))
        return EmbedResult(vectors=[[1.0, float(len(t))] for t in texts], tokens_in=7 * len(texts))


def test_a_real_embedder_is_priced_and_a_second_run_comes_from_the_cache(tmp_path):
    from pdbench.arena.diversity import play_embed
    from pdbench.arena.diversity_config import DiversityConfig
    from pdbench.providers.cache import ResponseCache
    from pdbench.providers.pricing import Price, PriceTable

    questions = [
        {"question_id": f"q_{i}", "author": "p", "text": f"question {i}?"} for i in range(3)
    ]
    config = DiversityConfig.model_validate(
        {"embedding": {"provider": "openai", "model": "text-embedding-3-small", "batch_size": 2}}
    )
    prices = PriceTable({"text-embedding-3-small": Price(input_per_mtok=0.02, output_per_mtok=0)})
    cache = ResponseCache(tmp_path / "cache.sqlite")
    embedder = _CountingEmbedder()
    runs = []
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        calls: list[dict] = []
        records = play_embed(
            questions, [], config=config, run_id="r", write_call=calls.append,
            run_dir=tmp_path / name, embedder=embedder, cache=cache, prices=prices,
        )  # fmt: skip
        runs.append((records, calls))
    (first, first_calls), (second, second_calls) = runs
    # 3 texts, 2 a request: 2 requests, asked once; 14 and 7 tokens at $0.02 per million
    assert embedder.requests == [["question 0?", "question 1?"], ["question 2?"]]
    assert [c["cost_usd"] for c in first_calls] == pytest.approx([14 * 0.02e-6, 7 * 0.02e-6])
    assert [c["cache_hit"] for c in first_calls] == [False, False]
    assert [(c["cache_hit"], c["cost_usd"], c["tokens_in"]) for c in second_calls] == [
        (True, 0.0, 14), (True, 0.0, 7)
    ]  # fmt: skip
    assert [r["vector"] for r in second] == [r["vector"] for r in first] == [[1.0, 11.0]] * 3
    cache.close()
