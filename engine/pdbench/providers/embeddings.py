"""Text embeddings: one vector per text, from a provider's embedding endpoint or the mock.

The provider layer knows no game: an :class:`Embedder` turns a batch of texts into vectors
and says what the request used. Three kinds:

- ``mock``: a deterministic offline embedding, hashed character n-grams. Every n-gram
  (``n`` = 3) of the lower-cased text, padded with a space at each end, adds 1 to the
  coordinate ``sha256(n-gram) mod dim``; the vector is L2-normalised. Two paraphrases share
  most of their n-grams, so their cosine similarity is high; unrelated texts share few.
  No tokens, no cost.
- ``openai``: any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama, a
  llama.cpp server started with ``--embedding true``) through the official SDK's
  ``client.embeddings.create``; ``base_url`` and ``api_key_env`` as for a chat model. A
  server that does not pool (llama-cpp-python's, for a chat model such as SmolLM2) returns
  one vector per token: they are averaged into one (mean pooling, :func:`pooled`).
- ``litellm``: ``litellm.embedding``.

Which provider embeds how is its spec's ``embedder`` (:data:`pdbench.providers.base.PROVIDERS`);
Anthropic has none, and the config refuses it. Transport failures are retried
like every other call (:func:`pdbench.providers.retry.call_with_retries`).
"""

from __future__ import annotations

import hashlib
import importlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pdbench.providers.base import PROVIDERS, key_env
from pdbench.providers.failures import Failure
from pdbench.providers.keys import api_key
from pdbench.providers.retry import RetryPolicy, call_with_retries

__all__ = [
    "EmbedResult",
    "Embedder",
    "EmbeddingSettings",
    "MockEmbedder",
    "build_embedder",
    "litellm_embedder",
    "mock_embedder",
    "ngram_vector",
    "openai_embedder",
    "pooled",
]

NGRAM = 3


@dataclass(frozen=True, slots=True)
class EmbedResult:
    """The vectors of one request, in the order of its texts, and what it used."""

    vectors: list[list[float]]
    tokens_in: int | None = None
    transport_retries: int = 0
    latency_ms: float = 0.0


class Embedder(Protocol):
    """Anything that embeds a batch of texts (its provider and model read-only)."""

    @property
    def provider(self) -> str: ...

    @property
    def model(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> EmbedResult: ...


class EmbeddingSettings(Protocol):
    """What an embedder is built from (the arena's ``diversity.embedding``)."""

    provider: str
    model: str
    base_url: str | None
    api_key_env: str | None
    dim: int
    max_retries: int
    timeout_s: float


def pooled(embedding: Sequence[Any]) -> list[float]:
    """One vector from what a server returned for one text: the vector itself, or the mean
    of its per-token vectors when it returned one per token (no pooling)."""
    if embedding and isinstance(embedding[0], (list, tuple)):
        width = len(embedding[0])
        if any(len(token) != width for token in embedding):
            raise ValueError("per-token embeddings of different lengths")
        return [sum(token[i] for token in embedding) / len(embedding) for i in range(width)]
    return [float(x) for x in embedding]


def ngram_vector(text: str, *, dim: int) -> list[float]:
    """The mock's embedding of ``text``: hashed character 3-grams, L2-normalised (all zeros
    for an empty text)."""
    padded = f" {' '.join(text.lower().split())} "
    counts = [0.0] * dim
    for i in range(len(padded) - NGRAM + 1):
        gram = padded[i : i + NGRAM].encode("utf-8")
        counts[int.from_bytes(hashlib.sha256(gram).digest()[:8], "big") % dim] += 1.0
    norm = math.sqrt(sum(c * c for c in counts))
    return [c / norm for c in counts] if norm else counts


@dataclass(frozen=True, slots=True)
class MockEmbedder:
    """Hashed character n-grams (:func:`ngram_vector`): offline, free, deterministic."""

    model: str
    dim: int
    provider: str = "mock"

    def embed(self, texts: Sequence[str]) -> EmbedResult:
        """The vectors of ``texts``."""
        return EmbedResult(vectors=[ngram_vector(t, dim=self.dim) for t in texts])


@dataclass(kw_only=True)
class _RemoteEmbedder:
    """An embedder behind a network call, retried on transient failures."""

    provider: str
    model: str
    request: Callable[[list[str]], tuple[list[list[float]], int | None]]
    classify: Callable[[BaseException], Failure]
    policy: RetryPolicy
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=lambda: random.Random(0))

    def embed(self, texts: Sequence[str]) -> EmbedResult:
        """The vectors of ``texts``, from one request (retried)."""
        start = time.monotonic()
        (vectors, tokens), retries = call_with_retries(
            lambda: self.request(list(texts)),
            policy=self.policy,
            classify=self.classify,
            sleep=self.sleep,
            rng=self.rng,
        )
        if len(vectors) != len(texts):
            raise ValueError(f"{self.model}: {len(vectors)} embeddings for {len(texts)} texts")
        if len({len(v) for v in vectors}) > 1:
            raise ValueError(f"{self.model}: embeddings of different lengths in one reply")
        latency = (time.monotonic() - start) * 1000
        return EmbedResult(
            vectors=vectors, tokens_in=tokens, transport_retries=retries, latency_ms=latency
        )


def mock_embedder(settings: EmbeddingSettings) -> Embedder:
    """The mock's embedder: hashed character 3-grams of ``settings.dim`` dimensions."""
    return MockEmbedder(model=settings.model, dim=settings.dim)


def openai_embedder(settings: EmbeddingSettings) -> Embedder:
    """OpenAI's (or any OpenAI-compatible server's) ``/v1/embeddings``."""
    import openai

    from pdbench.providers.sdk_errors import classify_sdk_error

    key = api_key(key_env("openai", settings) or "")
    if key is None and settings.base_url:
        key = "no-key-needed"  # a local server needs none
    client = openai.OpenAI(
        api_key=key, base_url=settings.base_url, max_retries=0, timeout=settings.timeout_s
    )

    def request(texts: list[str]) -> tuple[list[list[float]], int | None]:
        reply = client.embeddings.create(model=settings.model, input=texts)
        ordered = sorted(reply.data, key=lambda d: d.index)
        usage = getattr(reply, "usage", None)
        return [pooled(d.embedding) for d in ordered], getattr(usage, "prompt_tokens", None)

    return _RemoteEmbedder(
        provider="openai",
        model=settings.model,
        request=request,
        classify=lambda exc: classify_sdk_error(exc, sdk=openai),
        policy=RetryPolicy(max_retries=settings.max_retries),
    )


def litellm_embedder(settings: EmbeddingSettings) -> Embedder:
    """``litellm.embedding``, for any model LiteLLM routes."""
    import litellm

    from pdbench.providers.litellm import classify_litellm_error

    options: dict[str, Any] = {"timeout": settings.timeout_s}
    if settings.base_url:
        options["api_base"] = settings.base_url
    if settings.api_key_env:
        options["api_key"] = api_key(settings.api_key_env)

    def request(texts: list[str]) -> tuple[list[list[float]], int | None]:
        reply = litellm.embedding(model=settings.model, input=texts, **options)
        data = sorted(reply.data, key=lambda d: d["index"])
        usage = getattr(reply, "usage", None)
        return [pooled(d["embedding"]) for d in data], getattr(usage, "prompt_tokens", None)

    return _RemoteEmbedder(
        provider="litellm",
        model=settings.model,
        request=request,
        classify=classify_litellm_error,
        policy=RetryPolicy(max_retries=settings.max_retries),
    )


def build_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder of the provider ``settings`` name (its spec's ``embedder``)."""
    spec = PROVIDERS.get(settings.provider)
    if spec is None or spec.embedder is None:
        raise ValueError(f"no embedding endpoint for provider {settings.provider!r}")
    module_name, _, function_name = spec.embedder.partition(":")
    build: Callable[[EmbeddingSettings], Embedder] = getattr(
        importlib.import_module(module_name), function_name
    )
    return build(settings)
