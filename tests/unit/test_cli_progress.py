"""The progress of ``pdbench run`` off a terminal: a line every few items of a stage, with the
elapsed time, the ETA and the calls, tokens and cost read from the run's calls files."""

import io
import json
from pathlib import Path

from pdbench.cli.progress import CallTally, RunProgress, lines_every
from rich.console import Console


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=False, width=40), out  # lines are never wrapped


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _append_calls(path: Path, *calls: dict) -> None:
    with path.open("a", encoding="utf-8") as lines:
        for call in calls:
            lines.write(json.dumps(call) + "\n")


def test_a_line_every_tenth_of_a_stage_and_one_when_it_finishes(tmp_path: Path):
    console, out = _console()
    clock = _Clock()
    calls = tmp_path / "calls.jsonl"
    calls.touch()
    with RunProgress(tmp_path, console=console, clock=clock) as progress:
        for done in range(1, 21):
            clock.now += 3.0  # every match takes 3 s
            _append_calls(calls, {"tokens_in": 100, "tokens_out": 10, "cost_usd": 0.001})
            progress("matches", done, 20, f"match {done}")
    lines = out.getvalue().splitlines()
    # 20 matches, a line every 2 (a tenth), the last one the stage's end
    assert len(lines) == 10
    assert lines[0] == (
        "matches: 2/20 (10%), elapsed 0:00:06, ETA 0:00:54, 2 calls, 220 tokens, $0.0020"
    )
    assert lines[4].startswith("matches: 10/20 (50%), elapsed 0:00:30, ETA 0:00:30, 10 calls")
    assert lines[-1] == (
        "matches: 20/20 (100%), elapsed 0:01:00, done, 20 calls, 2,200 tokens, $0.0200"
    )


def test_each_stage_has_its_own_pace_and_the_elapsed_time_is_the_runs(tmp_path: Path):
    console, out = _console()
    clock = _Clock()
    with RunProgress(tmp_path, console=console, clock=clock, every=lambda total: 1) as progress:
        clock.now += 10.0
        progress("generate", 1, 1, "")
        clock.now += 2.0
        progress("answer", 1, 4, "")
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("generate: 1/1 (100%), elapsed 0:00:10, done")
    # the answer phase began when generate ended: 2 s for one of four, 6 s left
    # no call yet: no "0 calls, 0 tokens, $0"
    assert lines[1] == "answer: 1/4 (25%), elapsed 0:00:12, ETA 0:00:06"


def test_the_tally_reads_only_whole_lines_and_says_when_costs_are_unknown(tmp_path: Path):
    shard = tmp_path / "shards" / "part-0001"
    shard.mkdir(parents=True)
    _append_calls(tmp_path / "calls.jsonl", {"tokens_in": 5, "tokens_out": 1, "cost_usd": None})
    with (shard / "calls.jsonl").open("w") as lines:
        lines.write(json.dumps({"tokens_in": 7, "tokens_out": 2, "cost_usd": 0.5}) + "\n")
        lines.write('{"tokens_in": 1000')  # still being written
    tally = CallTally(tmp_path)
    tally.refresh()
    assert (tally.calls, tally.tokens) == (2, 15)
    assert tally.text() == "2 calls, 15 tokens, $0.5000 (priced calls only)"
    with (shard / "calls.jsonl").open("a") as lines:
        lines.write(', "tokens_out": 0, "cost_usd": null}\n')
    tally.refresh()
    assert (tally.calls, tally.tokens) == (3, 1015)
    unpriced = CallTally(tmp_path / "nothing")
    _append_calls(tmp_path / "calls.jsonl")
    assert unpriced.text() == ""  # a run of policies makes no call, and says nothing of calls


def test_lines_every_is_a_tenth_and_at_least_one():
    assert [lines_every(n) for n in (1, 9, 10, 40, 1005)] == [1, 1, 1, 4, 100]


def test_the_metrics_bar_counts_the_builds_nodes_and_never_the_runs_calls(tmp_path: Path):
    _append_calls(tmp_path / "calls.jsonl", {"tokens_in": 5, "tokens_out": 1, "cost_usd": 0.1})
    console, out = _console()
    clock = _Clock()
    with RunProgress(tmp_path, console=console, clock=clock, calls=False) as progress:
        for done in range(1, 21):
            clock.now += 0.5
            progress("metrics", done, 20, f"model_{done}")
    lines = out.getvalue().splitlines()
    assert lines[0] == "metrics: 2/20 (10%), elapsed 0:00:01, ETA 0:00:09"
    assert lines[-1] == "metrics: 20/20 (100%), elapsed 0:00:10, done"
