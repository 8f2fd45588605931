"""The embedding phase (``diversity``): every question and every valid answer embedded by
the one embedding model, for the diversity marts.

Played last, after every phase of play (a run without it is a prefix of a run with it): the
texts are the questions in question-id order, then the valid answers in answer-id order,
sent ``batch_size`` at a time (:mod:`pdbench.providers.embeddings`). Each request is one
``calls.jsonl`` line (phase ``embed``, agent ``embedder``, item ``batch-<k>``, its tokens;
the mock's cost nothing, a real model's is priced from ``prices:``, else LiteLLM's map, else
null); a request that fails after its transport retries is written as an ``error`` line and
fails the run, which can be resumed. A real model's vectors go into the run's response cache
(when the run has one) under the embedder, its endpoint and the texts, so a resumed or
repeated run embeds again at no cost (``cache_hit``). One ``embeddings.jsonl`` line per text.
What is embedded is the text as written (no player ever sees an embedding).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from pdbench.arena.diversity_config import DiversityConfig
from pdbench.arena.records import ArenaFiles
from pdbench.providers.base import Usage
from pdbench.providers.cache import CachedReply, ResponseCache, cache_key
from pdbench.providers.calls import CallContext, CallOutcome, prompt_sha256
from pdbench.providers.embeddings import Embedder, EmbedResult, build_embedder
from pdbench.providers.identity import endpoint_variables, public_url
from pdbench.providers.pricing import PriceTable
from pdbench.providers.retry import RetriesExhausted
from pdbench.storage.jsonl import JsonlWriter
from pdbench.storage.records.fields import SCHEMA_VERSION

__all__ = ["EMBED_AGENT", "embedding_texts", "play_embed"]

EMBED_AGENT = "embedder"
"""The ``agent`` of the embedding calls in ``calls.jsonl``."""


def embedding_texts(
    questions: Sequence[dict[str, Any]], answers: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """What is embedded, in order: ``kind``, ``item_id``, ``question_id``, ``player``,
    ``text``."""
    items = [
        {"kind": "question", "item_id": q["question_id"], "question_id": q["question_id"],
         "player": q["author"], "text": q["text"]}
        for q in sorted(questions, key=lambda q: q["question_id"])
    ]  # fmt: skip
    items += [
        {"kind": "answer", "item_id": a["answer_id"], "question_id": a["question_id"],
         "player": a["answerer"], "text": a["text"]}
        for a in sorted(answers, key=lambda a: a["answer_id"])
        if a["is_valid"]
    ]  # fmt: skip
    return items


def play_embed(
    questions: Sequence[dict[str, Any]],
    answers: Sequence[dict[str, Any]],
    *,
    config: DiversityConfig,
    run_id: str,
    write_call: Callable[[dict[str, Any]], None],
    run_dir: Path,
    embedder: Embedder | None = None,
    cache: ResponseCache | None = None,
    prices: PriceTable | None = None,
    on_request: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """The ``embeddings.jsonl`` records of every text, written into ``run_dir`` once all are
    in, each request's call line written to ``write_call``; a real model's requests are
    looked up in and stored into ``cache`` and priced from ``prices``. ``on_request(done,
    planned)`` follows every request (the progress of the embedding phase)."""
    embedder = embedder or build_embedder(config.embedding)
    if embedder.provider == "mock":
        cache = None  # free and deterministic: nothing to keep
    items = embedding_texts(questions, answers)
    size = config.embedding.batch_size
    records = []
    planned = -(-len(items) // size)
    for k, start in enumerate(range(0, len(items), size), start=1):
        batch = items[start : start + size]
        texts = [item["text"] for item in batch]
        line = partial(_call_line, embedder, run_id=run_id, k=k, texts=texts)
        key = _cache_key(embedder, config, texts) if cache is not None else ""
        cached = cache.get(key) if cache is not None else None
        began = time.monotonic()
        if cached is not None:
            result = EmbedResult(vectors=json.loads(cached.reply), tokens_in=cached.usage.tokens_in)
            elapsed = (time.monotonic() - began) * 1000
            write_call(line(ended=(elapsed, 0), tokens=result.tokens_in, cost=0.0, hit=True))
        else:
            try:
                result = embedder.embed(texts)
            except RetriesExhausted as exc:
                elapsed = (time.monotonic() - began) * 1000
                write_call(line(ended=(elapsed, exc.retries), error=exc.failure.reason))
                raise
            elapsed = result.latency_ms or (time.monotonic() - began) * 1000
            cost = _cost(embedder, result, prices)
            if cache is not None:
                usage = Usage(tokens_in=result.tokens_in, tokens_out=0, cost_usd=cost)
                cache.put(key, CachedReply(json.dumps(result.vectors), usage))
            write_call(
                line(ended=(elapsed, result.transport_retries), tokens=result.tokens_in, cost=cost)
            )
        records += _records(batch, result.vectors, embedder=embedder, run_id=run_id)
        if on_request is not None:
            on_request(k, planned)
    with JsonlWriter(run_dir / ArenaFiles.EMBEDDINGS) as writer:
        for record in records:
            writer.write(record, flush=False)
    return records


def _records(
    batch: list[dict[str, Any]], vectors: list[list[float]], *, embedder: Embedder, run_id: str
) -> list[dict[str, Any]]:
    """The ``embeddings.jsonl`` records of one request's texts."""
    return [
        {"schema_version": SCHEMA_VERSION, "run_id": run_id, "kind": item["kind"],
         "item_id": item["item_id"], "question_id": item["question_id"],
         "player": item["player"], "provider": embedder.provider,
         "embedding_model": embedder.model, "dim": len(vector),
         "vector": [float(x) for x in vector]}
        for item, vector in zip(batch, vectors, strict=True)
    ]  # fmt: skip


def _cache_key(embedder: Embedder, config: DiversityConfig, texts: list[str]) -> str:
    """The response-cache key of one request: the embedder, its settings, its endpoint as
    resolved (``base_url``, else ``OPENAI_BASE_URL`` and the like), the texts."""
    settings = config.embedding
    endpoint = (
        public_url(settings.base_url) if settings.base_url else {"default": endpoint_variables()}
    )
    reply_settings = settings.model_dump(
        mode="json", exclude={"base_url", "api_key_env", "batch_size", "max_retries", "timeout_s"}
    )
    return cache_key(
        provider=embedder.provider,
        identity={"settings": reply_settings, "endpoints": [endpoint]},
        model=embedder.model,
        params={"kind": "embedding", "pooling": "mean"},
        system="",
        prompt=json.dumps(texts, ensure_ascii=False),
        sample={},
    )


def _cost(embedder: Embedder, result: EmbedResult, prices: PriceTable | None) -> float | None:
    """USD of one request: its input tokens at the model's price (None when unknown)."""
    if embedder.provider == "mock":
        return 0.0
    price = prices.price(provider=embedder.provider, model=embedder.model) if prices else None
    return price.cost(tokens_in=result.tokens_in, tokens_out=0) if price else None


def _call_line(
    embedder: Embedder,
    *,
    run_id: str,
    k: int,
    texts: list[str],
    ended: tuple[float, int],
    tokens: int | None = None,
    cost: float | None = None,
    hit: bool = False,
    error: str | None = None,
) -> dict[str, Any]:
    """The ``calls.jsonl`` line of request ``k`` (keys in :class:`CallRecord` order): the
    mock's requests use no tokens and cost nothing."""
    context = CallContext(game="arena", phase="embed", agent=EMBED_AGENT, item_id=f"batch-{k:04d}")
    latency_ms, retries = ended
    if error is not None:
        usage = None
    elif embedder.provider == "mock":
        usage = Usage(tokens_in=0, tokens_out=0, cost_usd=0.0)
    else:
        usage = Usage(tokens_in=tokens, tokens_out=0, cost_usd=cost)
    return context.call_record(
        run_id=run_id,
        attempt=1,
        provider=embedder.provider,
        model=embedder.model,
        prompt_sha256=prompt_sha256("", json.dumps(texts, ensure_ascii=False)),
        outcome=CallOutcome(
            latency_ms=latency_ms,
            usage=usage,
            verdict=("ok" if error is None else "error", None),
            retries=retries,
            error=error,
            cache_hit=hit,
        ),
    )
