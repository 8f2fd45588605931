"""The response cache's key names everything that can change a reply: the endpoint however
it was given (config, ``OPENAI_BASE_URL``, ``.env``), every field of the LLM's config and
the mock's whole player. A run never replays a reply another replier gave."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.conftest import write_experiment
from tests.integration.test_cache_and_concurrency import run
from tests.integration.test_real_providers import KEY_ENV, SENTINEL, llm_config
from tests.servers.wire import wire_server


def actions(run_dir: Path) -> str:
    return "".join(r["agent_a_action"] for r in read_jsonl(run_dir / PDFiles.ROUNDS))


def manifest(run_dir: Path) -> RunManifest:
    return RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())


def test_a_server_named_by_openai_base_url_is_part_of_the_key(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    servers = wire_server("openai", default_reply="C"), wire_server("openai", default_reply="D")
    with servers[0] as a, servers[1] as b:
        config = llm_config(project, a, rounds=4, base_url=None, cache=True)
        assert "base_url: null" in config.read_text()
        monkeypatch.setenv("OPENAI_BASE_URL", a.base_url)
        run(config, project / "one")
        monkeypatch.setenv("OPENAI_BASE_URL", b.base_url)
        run(config, project / "two")

        assert (a.hits, b.hits) == (4, 4)  # B was asked: nothing of A's was replayed
        assert (actions(project / "one"), actions(project / "two")) == ("CCCC", "DDDD")
        assert not any(c["cache_hit"] for c in read_jsonl(project / "two" / RunFiles.CALLS))
        # each manifest records the server its run reached, not base_url: null
        field = "conditions[0].agent_a"
        assert manifest(project / "one").endpoints == {field: [a.base_url]}
        assert manifest(project / "two").endpoints == {field: [b.base_url]}

        run(config, project / "three")  # B again: now from the cache
        assert b.hits == 4 and actions(project / "three") == "DDDD"


def test_the_mock_s_strategy_is_part_of_the_key(project: Path):
    def mock_config(strategy: str) -> Path:
        llm = {
            "ref": "agents/llm_default.yaml",
            "overrides": {"cache": True, "mock": {"strategy": strategy}},
        }
        policy = {"ref": "agents/policies.yaml", "overrides": {"policy": "ALLC"}}
        condition = {"name": "llm_vs_allc", "agent_a": llm, "agent_b": policy}
        return write_experiment(
            project / "configs",
            replicates=1,
            horizon={"type": "fixed", "n": 4},
            conditions=[condition],
        )

    run(mock_config("ALLC"), project / "allc")
    run(mock_config("ALLD"), project / "alld")
    assert actions(project / "allc") == "CCCC"
    assert actions(project / "alld") == "DDDD"
    calls = list(read_jsonl(project / "alld" / RunFiles.CALLS))
    assert calls and not any(c["cache_hit"] for c in calls)


def test_the_manifest_records_a_pool_of_servers_without_a_password(
    project: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with wire_server("openai") as a:
        secret_url = a.base_url.replace("http://", "http://user:hunter2@") + "?token=abc"
        config = llm_config(project, a, rounds=1, base_url=[secret_url])
        run(config, project / "one")
    text = (project / "one" / RunFiles.MANIFEST).read_text()
    assert json.loads(text)["endpoints"] == {"conditions[0].agent_a": [a.base_url]}


def test_an_embedding_server_named_by_the_environment_is_part_of_the_key(
    monkeypatch: pytest.MonkeyPatch,
):
    from types import SimpleNamespace

    from pdbench.arena.diversity import _cache_key
    from pdbench.arena.diversity_config import DiversityConfig

    config = DiversityConfig.model_validate({"embedding": {"provider": "openai", "model": "e"}})
    embedder = SimpleNamespace(provider="openai", model="e")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    first = _cache_key(embedder, config, ["a text"])
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:2/v1")
    assert _cache_key(embedder, config, ["a text"]) != first
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1/")
    assert _cache_key(embedder, config, ["a text"]) == first
