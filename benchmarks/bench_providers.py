"""Benchmark of the provider layer (a script, not a test).

Run: ``uv run python benchmarks/bench_providers.py``.

A mock provider with 50 ms simulated latency plays 2,000 calls at concurrency 32 through the
real runner (gateway, cache, concurrent matches, plan-order rewrite). It prints the wall time,
the ideal time (calls x latency / concurrency) and their ratio (target <= 1.2); then runs the
same config again with the cache on and prints how many provider calls that made (target 0).

The config: 250 matches (one condition, 250 replicates) of an LLM agent (mock, cache on)
against TFT, fixed horizon of 8 rounds, no invalid replies: one call per move, 2,000 calls.
Matches are the unit of concurrency (a match's calls are sequential), so many short matches
let 32 workers stay busy; the best schedule takes ceil(250 / 32) x 8 x 50 ms = 3.2 s against
the ideal 3.125 s.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
LATENCY_MS = 50
CALLS = 2000
CONCURRENCY = 32
MATCHES = 250  # 250 matches x 8 rounds = 2,000 calls


def write_config(folder: Path) -> Path:
    shutil.copytree(REPO / "configs", folder / "configs")
    experiment = {
        "run_id": "bench",
        "seed": 1,
        "replicates": MATCHES,
        "max_concurrency": CONCURRENCY,
        "cache_path": str(folder / "cache.sqlite"),
        "horizon": {"type": "fixed", "n": CALLS // MATCHES},
        "conditions": [
            {
                "name": "mock_vs_tft",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {
                        "cache": True,
                        "mock": {"strategy": "TFT", "invalid_rate": 0.0, "latency_ms": LATENCY_MS},
                    },
                },
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    }
    path = folder / "configs" / "bench.yaml"
    path.write_text(yaml.safe_dump(experiment, sort_keys=False), encoding="utf-8")
    return path


def main() -> int:
    from pdbench.games import load_config
    from pdbench.pd.experiment import run_experiment
    from pdbench.providers.mock import MockProvider

    made = 0
    original = MockProvider.complete

    def counted(self, **kwargs):
        nonlocal made
        made += 1
        return original(self, **kwargs)

    MockProvider.complete = counted  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        loaded = load_config(write_config(folder))
        started = time.perf_counter()
        first = run_experiment(loaded, output_dir=folder / "first")
        wall = time.perf_counter() - started
        calls = first.counts["calls"]
        ideal = calls * LATENCY_MS / 1000 / CONCURRENCY
        print(f"first run: {calls} calls at concurrency {CONCURRENCY}, {LATENCY_MS} ms each")
        print(f"  provider calls made: {made}")
        ratio = wall / ideal
        print(
            f"  wall time: {wall:.2f} s; ideal: {ideal:.2f} s; ratio: {ratio:.3f} (target <= 1.2)"
        )
        made = 0
        started = time.perf_counter()
        second = run_experiment(loaded, output_dir=folder / "second")
        rerun = time.perf_counter() - started
        print(
            f"cached re-run: {second.counts['calls']} calls recorded, provider calls made: {made} "
            f"(target 0), wall time {rerun:.2f} s"
        )
        ok = wall / ideal <= 1.2 and made == 0 and calls == CALLS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
