"""The arena's ``diversity`` section: how questions and answers are embedded, when two
questions are near duplicates, and the weight of the optional diversity bonus."""

from __future__ import annotations

from pydantic import Field, field_validator

from pdbench.config.base import ApiKeyEnv, StrictModel
from pdbench.providers.base import PROVIDERS, providers_with

__all__ = ["DiversityConfig", "EmbeddingConfig"]


class EmbeddingConfig(StrictModel):
    """The one embedder of every question and answer (one model, so that similarities are
    comparable): :mod:`pdbench.providers.embeddings`."""

    provider: str = "mock"
    """``mock`` (hashed character 3-grams, offline), ``openai`` (any OpenAI-compatible
    ``/v1/embeddings``), ``litellm``. Anthropic has no embedding endpoint."""
    model: str = "mock-ngram"
    """The embedding model as sent to the provider."""
    base_url: str | None = None
    """Server URL of an OpenAI-compatible API (None: the vendor's default)."""
    api_key_env: ApiKeyEnv = None
    """NAME of the environment variable holding the key (None: the provider's default)."""
    dim: int = Field(default=256, ge=8, le=4096)
    """The mock's vector length (a real model has its own)."""
    batch_size: int = Field(default=64, ge=1, le=2048)
    """Texts per request."""
    max_retries: int = Field(default=4, ge=0)
    """Transport retries of a request (timeouts, 429, 5xx)."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Timeout of one request."""

    @field_validator("provider")
    @classmethod
    def _an_embedding_provider(cls, provider: str) -> str:
        embedders = providers_with("embedder")
        if provider in PROVIDERS and provider not in embedders:
            use = ", ".join(embedders[:-1]) + f" or {embedders[-1]}"
            raise ValueError(f"{provider} has no embedding endpoint (use {use})")
        if provider not in embedders:
            known = ", ".join(embedders)
            raise ValueError(f"unknown embedding provider {provider!r} (one of: {known})")
        return provider


class DiversityConfig(StrictModel):
    """Diversity of the questions each player writes (phase ``embed``,
    ``embeddings.jsonl``; ``diversity.parquet``, ``near_duplicates.parquet``)."""

    embedding: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    """The embedder (default: the mock's hashed character 3-grams)."""
    near_duplicate: float = Field(default=0.95, gt=0, le=1)
    """Cosine similarity at or above which two questions are near duplicates (the mock's
    3-grams put its paraphrases at 0.95 or more, its templated distinct questions below;
    a real embedding model has its own scale)."""
    weight: float = Field(default=0.0, ge=0)
    """Weight of the diversity bonus: ``score_with_bonus = score + weight * z``, ``z`` the
    player's diversity score standardised across players; reported next to the plain score,
    never in place of it (0: the bonus column equals the score)."""
