"""Peak memory of a long policy run: the engine streams, so RSS stays flat however many
rounds are played. Runs ``pdbench run`` in a subprocess and samples its RSS.

    uv run python benchmarks/bench_memory.py [--rounds 10000000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import write_config


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000_000)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between samples")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = write_config(
            folder,
            run_id="bench_memory",
            seed=1,
            horizon={"type": "fixed", "n": args.rounds},
            conditions=[
                {
                    "name": "tft_vs_wsls",
                    "agent_a": {"type": "policy", "policy": "TFT"},
                    "agent_b": {"type": "policy", "policy": "WSLS"},
                }
            ],
        )
        pdbench = Path(sys.executable).parent / "pdbench"
        command = [
            str(pdbench),
            "run",
            str(path),
            "--output-dir",
            str(folder / "run"),
            "--no-aggregate",
        ]
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        samples: list[tuple[float, float]] = []
        while process.poll() is None:
            value = rss_mb(process.pid)
            if value is not None:
                samples.append((time.perf_counter() - start, value))
            time.sleep(args.interval)
        elapsed = time.perf_counter() - start
        if process.returncode:
            raise SystemExit(f"pdbench run failed with exit code {process.returncode}")
        size = (folder / "run" / "rounds.jsonl").stat().st_size
    values = [v for _, v in samples]
    deciles = [values[min(len(values) - 1, int(len(values) * q))] for q in (0.1, 0.5, 0.9)]
    print(
        f"{args.rounds:,} rounds (TFT vs WSLS) in {elapsed:.1f} s "
        f"({args.rounds / elapsed:,.0f} rounds/s), rounds.jsonl {size / 1e9:.2f} GB"
    )
    print(
        f"  RSS samples: {len(values)}; at 10% / 50% / 90% of the run: "
        + " / ".join(f"{v:.0f} MB" for v in deciles)
    )
    print(f"  peak RSS: {max(values):.0f} MB")


if __name__ == "__main__":
    main()
