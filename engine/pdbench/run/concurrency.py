"""Run independent jobs on a few threads, results in input order: ``run_concurrently``.

Provider calls wait on the network, so threads are enough. The PD runner plays matches with
it; the arena runs its independent calls (one per player and item) with it.

- Results come back in the order of ``items`` whatever the order of completion; ``on_done``
  sees each result as it completes, in the calling thread (progress bars, bookkeeping).
- The first exception stops the rest: ``cancel`` is set (long jobs should check it; the
  provider gateway does before every call and retry), no new item starts, running ones get
  ``grace_s`` in all to notice (a call hung in the network is abandoned with its daemon
  thread), and the exception is re-raised in the calling thread. Ctrl-C
  (KeyboardInterrupt in the calling thread) does the same.
- ``max_concurrency=1`` runs everything in the calling thread, one by one.

Workers are daemon threads, so a job stuck in a slow call never keeps the process alive
after the run has been stopped.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["run_concurrently"]


@dataclass(frozen=True, slots=True)
class _Done:
    index: int
    value: object
    error: BaseException | None


def run_concurrently[T, R](
    items: Sequence[T],
    fn: Callable[[T], R],
    *,
    max_concurrency: int,
    on_done: Callable[[T, R], None] | None = None,
    cancel: threading.Event | None = None,
    grace_s: float = 1.5,
    poll_s: float = 0.1,
) -> list[R]:
    """``[fn(item) for item in items]``, at most ``max_concurrency`` at once (see module)."""
    if max_concurrency < 1:
        raise ValueError(f"max_concurrency must be at least 1, got {max_concurrency}")
    cancel = cancel if cancel is not None else threading.Event()
    if max_concurrency == 1 or len(items) <= 1:
        return _one_by_one(items, fn, on_done=on_done, cancel=cancel)
    workers = _Workers(items, fn, cancel=cancel, count=min(max_concurrency, len(items)))
    try:
        return workers.results(on_done=on_done, poll_s=poll_s)
    except BaseException:
        workers.stop(grace_s=grace_s)
        raise


def _one_by_one[T, R](
    items: Sequence[T],
    fn: Callable[[T], R],
    *,
    on_done: Callable[[T, R], None] | None,
    cancel: threading.Event,
) -> list[R]:
    """Every item in the calling thread, in order; stops when ``cancel`` is set."""
    results: list[R] = []
    for item in items:
        if cancel.is_set():
            raise RuntimeError("cancelled before every item ran")
        result = fn(item)
        results.append(result)
        if on_done is not None:
            on_done(item, result)
    return results


class _Workers[T, R]:
    """``count`` daemon threads taking the indices of ``items`` from one queue until none is
    left or ``cancel`` is set; each result (or exception) goes into a second queue."""

    def __init__(
        self, items: Sequence[T], fn: Callable[[T], R], *, cancel: threading.Event, count: int
    ) -> None:
        self.items = items
        self.fn = fn
        self.cancel = cancel
        self.todo: queue.SimpleQueue[int] = queue.SimpleQueue()
        for index in range(len(items)):
            self.todo.put(index)
        self.done: queue.SimpleQueue[_Done] = queue.SimpleQueue()
        self.threads = [
            threading.Thread(target=self._work, name=f"pdbench-worker-{n}", daemon=True)
            for n in range(count)
        ]
        for thread in self.threads:
            thread.start()

    def _work(self) -> None:
        while not self.cancel.is_set():
            try:
                index = self.todo.get_nowait()
            except queue.Empty:
                return
            try:
                self.done.put(_Done(index, self.fn(self.items[index]), None))
            except BaseException as exc:
                self.done.put(_Done(index, None, exc))

    def results(self, *, on_done: Callable[[T, R], None] | None, poll_s: float) -> list[R]:
        """Every result in the order of ``items``, ``on_done`` called as each arrives; the
        first exception of a job is re-raised here."""
        slots: list[object] = [None] * len(self.items)
        finished = 0
        while finished < len(self.items):
            try:
                outcome = self.done.get(timeout=poll_s)
            except queue.Empty:
                if not any(thread.is_alive() for thread in self.threads) and self.done.empty():
                    raise RuntimeError("workers stopped before every item ran") from None
                continue
            if outcome.error is not None:
                raise outcome.error
            slots[outcome.index] = outcome.value
            finished += 1
            if on_done is not None:
                on_done(self.items[outcome.index], outcome.value)  # type: ignore[arg-type]
        return slots  # type: ignore[return-value]

    def stop(self, *, grace_s: float) -> None:
        """Set ``cancel`` and give the running jobs ``grace_s`` in all to notice."""
        self.cancel.set()
        deadline = time.monotonic() + grace_s  # for all of them: Ctrl-C ends in seconds
        for thread in self.threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
