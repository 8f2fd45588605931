"""Time `pdbench aggregate` against the floor: DuckDB merely reading and counting rounds.jsonl.

Not a test. Generates a synthetic PD run of N rounds (matches of 100 rounds in 4 conditions,
1% of the matches aborted, a policy-only run with an empty calls.jsonl), then measures, each in
a fresh child process so that start-up costs count and peak memory is per measurement:

- floor: ``select count(*) from read_json('rounds.jsonl')`` in DuckDB (which may skip
  parsing the values);
- floor, all columns: ``select count(columns(*)) from read_json('rounds.jsonl')``, which parses
  every column of every line: the baseline the ratio is taken against;
- aggregate: ``aggregate_run(run_dir)`` (every model and data test of the compiled dbt
  project, sent to DuckDB in the child process).

Both are measured in the same invocation under the same conditions: the run's files are read
once first (so all find them in the page cache), then the floors and the aggregate alternate
``--repeat`` times (default 3) and the best and the median of each are reported; the ratio is
best aggregate / best all-columns floor. The first aggregate after a change of the dbt project
also compiles it (``pdbench.dbt_build.compilation``): with ``--repeat`` 2 or more, the best is
a build of the compiled project. Peak memory is the largest peak RSS of the child processes.

Usage: ``uv run python benchmarks/bench_aggregate.py 1000000 10000000 [--repeat 3]
[--dir DIR --keep --reuse]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROUNDS_PER_MATCH = 100
CONDITIONS = ("allc_vs_alld", "tft_vs_alld", "tft_vs_tft", "grim_vs_random")


def generate_run(run_dir: Path, n_rounds: int) -> None:
    """Write rounds.jsonl, matches.jsonl, an empty calls.jsonl and the manifest."""
    run_dir.mkdir(parents=True, exist_ok=True)
    n_matches = -(-n_rounds // ROUNDS_PER_MATCH)
    conditions = "[" + ", ".join(f"'{c}'" for c in CONDITIONS) + "]"
    with duckdb.connect() as con:
        con.execute(
            f"""
            create temp table match_plan as
            select
                m as match_number,
                {conditions}[m % {len(CONDITIONS)} + 1] as condition,
                (m // {len(CONDITIONS)})::integer as replicate,
                hash(m, 'seed') % 1000000 as match_seed,
                hash(m, 'abort') % 100 = 0 as is_aborted
            from range({n_matches}) as matches(m)
            """
        )
        con.execute(
            f"""
            copy (
                with rounds as (
                    select
                        i // {ROUNDS_PER_MATCH} as match_number,
                        (i % {ROUNDS_PER_MATCH} + 1)::integer as round_index,
                        case when hash(i, 'a') % 10 < 6 then 'C' else 'D' end as action_a,
                        case when hash(i, 'b') % 10 < 5 then 'C' else 'D' end as action_b
                    from range({n_rounds}) as r(i)
                ),
                scored as (
                    select
                        *,
                        case
                            when action_a = 'C' and action_b = 'C' then 3.0
                            when action_a = 'C' then 0.0
                            when action_b = 'C' then 5.0
                            else 1.0
                        end as payoff_a,
                        case
                            when action_a = 'C' and action_b = 'C' then 3.0
                            when action_b = 'C' then 0.0
                            when action_a = 'C' then 5.0
                            else 1.0
                        end as payoff_b
                    from rounds
                )
                select
                    1 as schema_version,
                    'bench' as run_id,
                    p.condition || '/' || p.replicate as match_id,
                    p.condition,
                    p.replicate,
                    s.round_index,
                    p.match_seed,
                    'policy_a' as agent_a_name,
                    'policy_b' as agent_b_name,
                    'policy' as agent_a_kind,
                    'policy' as agent_b_kind,
                    s.action_a as agent_a_intended_action,
                    s.action_b as agent_b_intended_action,
                    s.action_a as agent_a_action,
                    s.action_b as agent_b_action,
                    s.payoff_a as agent_a_payoff,
                    s.payoff_b as agent_b_payoff,
                    s.payoff_a * s.round_index as agent_a_cum_payoff,
                    s.payoff_b * s.round_index as agent_b_cum_payoff,
                    true as agent_a_valid,
                    true as agent_b_valid,
                    0 as agent_a_attempts,
                    0 as agent_b_attempts,
                    'fixed' as horizon_type,
                    {ROUNDS_PER_MATCH} as fixed_n,
                    null::double as stop_prob,
                    '2025-01-01T00:00:00Z' as timestamp_utc
                from scored as s
                inner join match_plan as p on s.match_number = p.match_number
            ) to '{run_dir / "rounds.jsonl"}' (format json)
            """
        )
        con.execute(
            f"""
            copy (
                select
                    1 as schema_version,
                    'bench' as run_id,
                    condition || '/' || replicate as match_id,
                    condition,
                    replicate,
                    match_seed,
                    'policy_a' as agent_a_name,
                    'policy_b' as agent_b_name,
                    'policy' as agent_a_kind,
                    'policy' as agent_b_kind,
                    'fixed' as horizon_type,
                    {ROUNDS_PER_MATCH} as planned_rounds,
                    {ROUNDS_PER_MATCH} as rounds_played,
                    case when is_aborted then 'aborted' else 'ok' end as status,
                    case when is_aborted then 'synthetic abort' end as abort_reason,
                    '2025-01-01T00:00:00Z' as started_at,
                    '2025-01-01T00:00:00Z' as finished_at
                from match_plan
            ) to '{run_dir / "matches.jsonl"}' (format json)
            """
        )
    (run_dir / "calls.jsonl").write_text("")
    manifest = {
        "schema_version": 1,
        "run_id": "bench",
        "game": "pd",
        "status": "completed",
        "seed": 1,
        "config_path": "synthetic",
        "config_sha256": "0" * 64,
        "config": {},
        "metric_params": {
            "collapse_k": 10,
            "collapse_threshold": 0.2,
            "bootstrap_n": 1000,
            "bootstrap_seed": 1,
            "ecosystem_generations": 100,
            "moran_population": 10,
            "moran_repetitions": 1000,
            "metrics": [],
        },
        "versions": {},
        "git_commit": None,
        "python": sys.version.split()[0],
        "platform": sys.platform,
        "started_at": "2025-01-01T00:00:00Z",
        "finished_at": "2025-01-01T00:00:00Z",
        "counts": {"rounds": n_rounds, "matches": n_matches},
    }
    (run_dir / "run_manifest.json").write_text(json.dumps(manifest, indent=2))


_FLOOR = """
import sys, duckdb
with duckdb.connect() as con:
    con.execute("set enable_progress_bar = false")
    query = "select count(*) from read_json(?, format = 'newline_delimited')"
    print(con.execute(query, [sys.argv[1]]).fetchone()[0])
"""

_FLOOR_ALL = """
import sys, duckdb
with duckdb.connect() as con:
    con.execute("set enable_progress_bar = false")
    query = "select count(columns(*)) from read_json(?, format = 'newline_delimited')"
    print(max(con.execute(query, [sys.argv[1]]).fetchone()))
"""

_AGGREGATE = """
import sys
from pathlib import Path
from pdbench.aggregate import aggregate_run
print(aggregate_run(Path(sys.argv[1])).tables)
"""


def measure(code: str, argument: str) -> tuple[float, float, str]:
    """Run ``code`` in a fresh Python; return wall seconds, peak RSS in GiB and its stdout."""
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen([sys.executable, "-c", code, argument], stdout=out)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - start
        out.seek(0)
        text = out.read().strip()
    if child.returncode != 0:
        raise SystemExit(f"child failed ({child.returncode}): {text}")
    return elapsed, usage.ru_maxrss / 1024**2, text  # ru_maxrss is in KiB on Linux


def warm_page_cache(run_dir: Path) -> None:
    """Read every file of the run once, so that no measurement pays for the disk."""
    for path in sorted(run_dir.iterdir()):
        if path.is_file():
            with path.open("rb") as handle:
                while handle.read(1 << 24):
                    pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1_000_000])
    parser.add_argument("--dir", type=Path, default=None, help="where to write the runs")
    parser.add_argument("--keep", action="store_true", help="keep the generated runs")
    parser.add_argument("--reuse", action="store_true", help="reuse runs kept in --dir")
    parser.add_argument("--repeat", type=int, default=3, help="measurements of each (>= 1)")
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="pdbench-bench-"))
    load = " / ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"cpus={os.cpu_count()}  load average {load}  repeat={args.repeat}  runs in {base}")
    print(f"{'rounds':>12} {'jsonl GiB':>9} {'floor s':>11} {'all columns s':>13}"
          f" {'aggregate s':>12} {'ratio':>6} {'floor GiB':>9} {'aggregate GiB':>13}",
          flush=True)  # fmt: skip
    for n_rounds in args.sizes:
        run_dir = base / f"run_{n_rounds}"
        started = time.perf_counter()
        if not (args.reuse and (run_dir / "run_manifest.json").is_file()):
            generate_run(run_dir, n_rounds)
        generated = time.perf_counter() - started
        size = (run_dir / "rounds.jsonl").stat().st_size / 1024**3
        warm_page_cache(run_dir)
        times: dict[str, list[float]] = {"floor": [], "all": [], "aggregate": []}
        peaks: dict[str, list[float]] = {"floor": [], "aggregate": []}
        tables = ""
        for _ in range(max(1, args.repeat)):
            for name, code in (("floor", _FLOOR), ("all", _FLOOR_ALL)):
                seconds, gib, counted = measure(code, str(run_dir / "rounds.jsonl"))
                assert int(counted.splitlines()[-1]) == n_rounds, counted
                times[name].append(seconds)
                peaks["floor"].append(gib)
            seconds, gib, tables = measure(_AGGREGATE, str(run_dir))
            times["aggregate"].append(seconds)
            peaks["aggregate"].append(gib)
        text = {name: f"{min(v):.1f} ({statistics.median(v):.1f})" for name, v in times.items()}
        print(
            f"{n_rounds:>12,} {size:>9.2f} {text['floor']:>11} {text['all']:>13}"
            f" {text['aggregate']:>12} {min(times['aggregate']) / min(times['all']):>6.2f}"
            f" {max(peaks['floor']):>9.2f} {max(peaks['aggregate']):>13.2f}"
            f"   (best (median) of {args.repeat}; generated in {generated:.0f} s; {tables})",
            flush=True,
        )
        if not args.keep:
            shutil.rmtree(run_dir)
    if not args.keep and args.dir is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
