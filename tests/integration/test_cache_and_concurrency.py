"""The response cache, and concurrent runs giving the rows of a sequential one."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.games import load_config
from pdbench.pd.experiment import experiment_runtime, run_experiment
from pdbench.pd.records import PDFiles
from pdbench.providers.cache import ResponseCache
from pdbench.providers.calls import CallContext
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles

from tests.conftest import edit, write_experiment
from tests.integration.test_real_providers import KEY_ENV, SENTINEL, llm_config
from tests.servers.wire import wire_server

TIMES = {"timestamp_utc", "started_at", "finished_at", "latency_ms"}


def rows(run_dir: Path, name: str) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMES} for r in read_jsonl(run_dir / name)]


def run(config: Path, out: Path, **options):
    loaded = load_config(config)
    runtime = experiment_runtime(loaded.config, use_cache=options.pop("use_cache", True))
    runtime.sleep = lambda _: None
    return run_experiment(loaded, output_dir=out, runtime=runtime, **options)


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)


def test_a_second_run_is_served_from_the_cache(project: Path, key: None):
    with wire_server("openai") as server:
        config = llm_config(project, server, rounds=4)
        run(config, project / "one")
        assert server.hits == 4
        run(config, project / "two")
        assert server.hits == 4  # not one call more
        cached = list(read_jsonl(project / "two" / RunFiles.CALLS))
        assert [c["cache_hit"] for c in cached] == [True] * 4
        assert all(c["cost_usd"] == 0.0 and c["tokens_in"] for c in cached)
        first = list(read_jsonl(project / "one" / RunFiles.CALLS))
        assert [c["cache_hit"] for c in first] == [False] * 4
        assert rows(project / "one", PDFiles.ROUNDS) == rows(project / "two", PDFiles.ROUNDS)
        run(config, project / "three", use_cache=False)
        assert server.hits == 8
        assert not any(c["cache_hit"] for c in read_jsonl(project / "three" / RunFiles.CALLS))
    assert Path("data/cache/responses.sqlite").is_file()


def test_replicates_at_temperature_above_zero_are_distinct_samples(project: Path, key: None):
    with wire_server("anthropic") as server:
        config = llm_config(project, server, rounds=3, temperature=0.8)
        text = config.read_text().replace("replicates: 1", "replicates: 3")
        config.write_text(text)
        run(config, project / "one")
        # the same prompts in every replicate, yet no replicate reuses another's reply
        assert server.hits == 3 * 3
        prompts = {(r.body["system"], r.body["messages"][0]["content"]) for r in server.requests}
        assert len(prompts) < server.hits
        run(config, project / "two")
        assert server.hits == 9


def test_cache_keys_name_the_sample():
    base = CallContext(game="pd", phase="pd_round", agent="agent_a", condition="c", replicate=0)
    other = CallContext(game="pd", phase="pd_round", agent="agent_a", condition="c", replicate=1)
    assert base.sample_key(seed=1, attempt=1) != other.sample_key(seed=1, attempt=1)
    assert base.sample_key(seed=1, attempt=1) != base.sample_key(seed=1, attempt=2)
    assert base.sample_key(seed=1, attempt=1) != base.sample_key(seed=2, attempt=1)


def test_the_mock_bypasses_the_cache_unless_told(project: Path):
    config = write_experiment(project / "configs")
    run(config, project / "one")
    assert not Path("data/cache/responses.sqlite").exists()
    edit(config, "mock:\n        strategy: TFT", "cache: true\n      mock:\n        strategy: TFT")
    assert "cache: true" in config.read_text()
    run(config, project / "two")
    run(config, project / "three")
    calls = list(read_jsonl(project / "three" / RunFiles.CALLS))
    hits = [c for c in calls if c["condition"] == "llm_vs_gtft"]
    assert hits and all(c["cache_hit"] for c in hits)
    assert len(ResponseCache("data/cache/responses.sqlite")) == len(hits)


@pytest.mark.parametrize("invalid_rate", [0.0, 0.3])
def test_concurrency_1_and_16_give_identical_rows(project: Path, invalid_rate: float):
    config = write_experiment(
        project / "configs",
        replicates=4,
        horizon={"type": "geometric", "stop_prob": 0.2, "max_rounds": 30},
    )
    for strategy in ("TFT", "WSLS", "ALLD"):  # every LLM agent: some latency, some invalid
        edit(
            config,
            f"strategy: {strategy}",
            f"strategy: {strategy}\n        invalid_rate: {invalid_rate}\n        latency_ms: 1",
        )
    sequential = project / "one"
    concurrent = project / "sixteen"
    run(config, sequential)
    loaded = load_config(config)
    loaded = type(loaded)(
        path=loaded.path,
        root=loaded.root,
        config=loaded.config.model_copy(update={"max_concurrency": 16}),
    )
    order: list[str] = []
    runtime = experiment_runtime(loaded.config)
    result = run_experiment(
        loaded,
        output_dir=concurrent,
        runtime=runtime,
        on_match_done=lambda plan, _: order.append(plan.match_id),
    )
    assert result.manifest.status == "completed"
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert rows(sequential, name) == rows(concurrent, name), name
    assert len(order) == 12
    assert result.counts["rounds"] == len(rows(concurrent, PDFiles.ROUNDS))
