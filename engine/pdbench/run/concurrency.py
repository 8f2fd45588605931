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
        results: list[R] = []
        for item in items:
            if cancel.is_set():
                raise RuntimeError("cancelled before every item ran")
            result = fn(item)
            results.append(result)
            if on_done is not None:
                on_done(item, result)
        return results

    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(items)):
        todo.put(index)
    done: queue.SimpleQueue[_Done] = queue.SimpleQueue()

    def work() -> None:
        while not cancel.is_set():
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            try:
                done.put(_Done(index, fn(items[index]), None))
            except BaseException as exc:
                done.put(_Done(index, None, exc))

    workers = [
        threading.Thread(target=work, name=f"pdbench-worker-{n}", daemon=True)
        for n in range(min(max_concurrency, len(items)))
    ]
    for worker in workers:
        worker.start()
    slots: list[object] = [None] * len(items)
    finished = 0
    try:
        while finished < len(items):
            try:
                outcome = done.get(timeout=poll_s)
            except queue.Empty:
                if not any(worker.is_alive() for worker in workers) and done.empty():
                    raise RuntimeError("workers stopped before every item ran") from None
                continue
            if outcome.error is not None:
                raise outcome.error
            slots[outcome.index] = outcome.value
            finished += 1
            if on_done is not None:
                on_done(items[outcome.index], outcome.value)  # type: ignore[arg-type]
    except BaseException:
        cancel.set()
        deadline = time.monotonic() + grace_s  # for all of them: Ctrl-C ends in seconds
        for worker in workers:
            worker.join(timeout=max(0.0, deadline - time.monotonic()))
        raise
    return slots  # type: ignore[return-value]
