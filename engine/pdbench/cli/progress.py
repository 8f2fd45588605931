"""The progress of ``pdbench run`` on stderr: for each stage (the PD's matches, each phase of
the arena, the arena's embedding requests) how much is done, the time elapsed, the time left
(ETA), and the provider calls, tokens and cost so far.

On a terminal a bar per stage is redrawn in place and removed when the run ends. Elsewhere (a
log file, CI, a pipe) a line is printed every ``every`` items of a stage and when a stage
finishes, so a long run is never silent until its end::

    matches: 8/40 (20%), elapsed 0:00:31, ETA 0:02:04, 16 calls, 5,210 tokens, $0.0031

Calls, tokens and cost are read from the run directory's ``calls.jsonl`` files as they grow
(every call record carries its tokens and, where the model's price is known, its cost).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from rich import progress as bars
from rich.console import Console

from pdbench.number_text import plural
from pdbench.storage.records.files import RunFiles

__all__ = ["CallTally", "RunProgress", "lines_every"]

_TALLY_EVERY_S = 0.5
"""The least time between two reads of the calls files (they are read as they grow)."""


def lines_every(total: int) -> int:
    """How many items of a stage of ``total`` pass between two lines off a terminal: about
    one line per tenth of the stage, at least one item."""
    return max(1, total // 10)


@dataclass
class CallTally:
    """The provider calls recorded so far under a run directory, read incrementally."""

    run_dir: Path
    calls: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    priced_calls: int = 0
    """Calls whose cost is known (a model without a price records none)."""
    _offsets: dict[Path, int] = field(default_factory=dict)

    def refresh(self) -> None:
        """Read the lines appended to every ``calls.jsonl`` since the last refresh."""
        if not self.run_dir.is_dir():
            return
        for path in sorted(self.run_dir.rglob(RunFiles.CALLS)):
            self._read(path)

    def _read(self, path: Path) -> None:
        offset = self._offsets.get(path, 0)
        with path.open("rb") as lines:
            lines.seek(offset)
            appended = lines.read()
        whole = appended[: appended.rfind(b"\n") + 1]  # a line still being written waits
        self._offsets[path] = offset + len(whole)
        for raw in whole.splitlines():
            try:
                call = json.loads(raw)
            except ValueError:
                continue
            self._count(call)

    def _count(self, call: dict[str, Any]) -> None:
        self.calls += 1
        self.tokens += (call.get("tokens_in") or 0) + (call.get("tokens_out") or 0)
        cost = call.get("cost_usd")
        if cost is not None:
            self.cost_usd += cost
            self.priced_calls += 1

    def text(self) -> str:
        """``N calls, N tokens, $cost`` (the cost of the priced calls; ``cost unknown`` when
        no call had a price); nothing before the first call (a run of policies makes none)."""
        if self.calls == 0:
            return ""
        if self.priced_calls == 0:
            cost = "cost unknown (no prices)"
        elif self.priced_calls < self.calls:
            cost = f"${self.cost_usd:.4f} (priced calls only)"
        else:
            cost = f"${self.cost_usd:.4f}"
        return (
            f"{plural(self.calls, 'call', grouped=True)}, "
            f"{plural(self.tokens, 'token', grouped=True)}, {cost}"
        )


def _clock_text(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


@dataclass
class _Stage:
    started: float
    every: int
    printed: int = 0
    """Items done when the last line was printed."""


class RunProgress:
    """``on_progress(bar, done, total, detail)`` of a run (:data:`pdbench.game.ProgressCallback`)
    drawn as bars on a terminal, or as a line every ``every`` items elsewhere (see module)."""

    def __init__(
        self,
        run_dir: Path,
        *,
        console: Console | None = None,
        every: Callable[[int], int] = lines_every,
        clock: Callable[[], float] = time.monotonic,
        calls: bool = True,
    ) -> None:
        self.console = console or Console(stderr=True)
        self.tally = CallTally(run_dir)
        self.calls = calls
        """Whether the run's provider calls so far are shown (not while its metrics are
        built: no call is made then)."""
        self.every = every
        self.clock = clock
        self.started = clock()
        self._last_event = self.started
        self._last_tally = -_TALLY_EVERY_S
        self._stages: dict[str, _Stage] = {}
        self._bars: dict[str, bars.TaskID] = {}
        self._progress = bars.Progress(
            bars.TextColumn("[bold]{task.description}"),
            bars.BarColumn(),
            bars.MofNCompleteColumn(),
            bars.TimeElapsedColumn(),
            bars.TextColumn("ETA"),
            bars.TimeRemainingColumn(),
            bars.TextColumn("{task.fields[usage]}"),
            bars.TextColumn("{task.fields[detail]}"),
            console=self.console,
            transient=True,
            disable=not self.console.is_terminal,
        )

    def __enter__(self) -> Self:
        self._progress.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._progress.__exit__(kind, error, trace)

    def __call__(self, bar: str, done: int, total: int, detail: str) -> None:
        now = self.clock()
        stage = self._stages.get(bar)
        if stage is None:
            stage = self._stages[bar] = _Stage(started=self._last_event, every=self.every(total))
        self._last_event = now
        finished = done >= total
        printing = not self.console.is_terminal and (
            finished or done - stage.printed >= stage.every
        )
        # a printed line reads the calls so far, however soon after the last read
        if self.calls and (finished or printing or now - self._last_tally >= _TALLY_EVERY_S):
            self.tally.refresh()
            self._last_tally = now
        if self.console.is_terminal:
            self._draw(bar, done, total, detail)
        elif printing:
            stage.printed = done
            self.console.print(
                self.line(bar, done, total, now=now), highlight=False, soft_wrap=True
            )

    def _draw(self, bar: str, done: int, total: int, detail: str) -> None:
        if bar not in self._bars:
            self._bars[bar] = self._progress.add_task(bar, total=total, detail="", usage="")
        usage = self.tally.text()
        self._progress.update(self._bars[bar], completed=done, detail=detail, usage=usage)

    def line(self, bar: str, done: int, total: int, *, now: float) -> str:
        """The line printed off a terminal: the stage's count, the run's elapsed time, the
        stage's ETA (from its pace so far), the calls, tokens and cost so far."""
        stage = self._stages[bar]
        share = f" ({done / total:.0%})" if total else ""
        taken = now - stage.started
        if done >= total:
            eta = "done"
        elif done:
            eta = f"ETA {_clock_text(taken / done * (total - done))}"
        else:
            eta = "ETA unknown"
        elapsed = _clock_text(now - self.started)
        usage = self.tally.text()
        return f"{bar}: {done}/{total}{share}, elapsed {elapsed}, {eta}" + (
            f", {usage}" if usage else ""
        )
