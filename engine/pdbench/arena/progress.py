"""The finished tasks of a phase, written in task order as they come back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pdbench.arena.tasks import CallOutcome, CallTask

__all__ = ["PhaseProgress", "ProgressCallback"]

ProgressCallback = Callable[[str, int, int], None]
"""``(phase, calls done, calls planned)`` after every task, in the calling thread."""


class PhaseProgress:
    """The finished tasks of a phase: each task's call records are written once every
    earlier task's are, and progress is reported as tasks finish."""

    def __init__(
        self,
        tasks: list[CallTask],
        *,
        write: Callable[[dict[str, Any]], None],
        on_progress: ProgressCallback | None,
    ) -> None:
        self.tasks = tasks
        self.write = write
        self.on_progress = on_progress
        self.next = 0
        self.pending: dict[int, list[dict[str, Any]]] = {}
        self.finished: dict[int, CallOutcome] = {}

    def done(
        self, item: tuple[int, CallTask], result: tuple[CallOutcome | None, list[dict[str, Any]]]
    ) -> None:
        """A task came back: finished (its records go out in order), or waiting."""
        (index, task), (outcome, records) = item, result
        if outcome is None:
            return
        self.finished[index] = outcome
        self.pending[index] = records
        while self.next in self.pending:
            for record in self.pending.pop(self.next):
                self.write(record)
            self.next += 1
        if self.on_progress is not None:
            self.on_progress(task.phase, len(self.finished), len(self.tasks))

    def outcomes(self) -> list[CallOutcome]:
        """Every task's outcome, in task order."""
        return [self.finished[index] for index in range(len(self.tasks))]
