"""Where the chunks of a run are played: in this process, or on a Dask cluster.

``pdbench run --executor`` takes ``local`` (the default) or ``dask://<host>:<port>``, the
address of a running Dask scheduler (``dask scheduler``, a SLURM job from dask-jobqueue, a
Kubernetes cluster from dask-kubernetes or the Dask helm chart). pdbench starts no cluster
of its own: Dask's scheduler hands the chunks to its workers, re-runs the chunk of a worker
that died on another one, and gives the results back; pdbench only says what a chunk is.

An executor is entered before the run directory is touched (``with executor:``), so a
scheduler that cannot be reached fails in one line and leaves nothing behind. Its
:meth:`~Executor.run` calls ``fn(job)`` for every job, anywhere, and ``on_done(job, result)``
in the calling thread as each finishes, in no set order. ``distributed`` is imported only
by the Dask executor: the plain install runs without it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Protocol, Self
from urllib.parse import urlsplit

from pdbench.errors import ExecutorError

__all__ = ["DaskExecutor", "Executor", "LocalExecutor", "parse_executor"]

INSTALL_HINT = "pip install 'pdbench[cluster]' (from a checkout: uv sync --extra cluster)"
TASK_RETRIES = 2
"""Times a chunk that raised (a file system hiccup) is tried again; a chunk whose worker
died is handed to another worker by the scheduler, up to its ``allowed-failures``."""


class Executor(Protocol):
    """What plays a run's chunks."""

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def run[J, R](
        self, fn: Callable[[J], R], jobs: Sequence[J], *, on_done: Callable[[J, R], None]
    ) -> None:
        """``fn(job)`` for every job; ``on_done`` in the calling thread as each finishes."""
        ...

    def slots(self) -> int:
        """Jobs it plays side by side (entered first): what chunk sizing divides the work by."""
        ...


class LocalExecutor:
    """Every job in this process, one after the other, in order."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def slots(self) -> int:
        return 1

    def run[J, R](
        self, fn: Callable[[J], R], jobs: Sequence[J], *, on_done: Callable[[J, R], None]
    ) -> None:
        for job in jobs:
            on_done(job, fn(job))


class DaskExecutor:
    """The workers of a running Dask scheduler at ``address`` (``tcp://host:port``)."""

    def __init__(self, address: str, *, connect_timeout_s: float | None = None) -> None:
        self.address = address
        self.connect_timeout_s = connect_timeout_s
        """None: Dask's ``distributed.comm.timeouts.connect`` (30 s unless configured)."""
        self._client: Any = None

    def __enter__(self) -> Self:
        distributed = _import_distributed()
        timeout = self.connect_timeout_s
        if timeout is None:
            timeout = _configured_connect_timeout()
        try:
            self._client = distributed.Client(self.address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(
                f"cannot reach the Dask scheduler at {self.address} within {timeout:g} s "
                f"({type(exc).__name__}); is `dask scheduler` running there?"
            ) from None
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def run[J, R](
        self, fn: Callable[[J], R], jobs: Sequence[J], *, on_done: Callable[[J, R], None]
    ) -> None:
        distributed = _import_distributed()
        client = self._connected()
        token = uuid.uuid4().hex[:12]
        keys = [f"pdbench-{token}-{index}" for index in range(len(jobs))]
        futures = client.map(fn, jobs, key=keys, pure=False, retries=TASK_RETRIES)
        job_of = dict(zip(keys, jobs, strict=True))
        try:
            for future, result in distributed.as_completed(
                futures, with_results=True, loop=client.loop
            ):
                on_done(job_of[future.key], result)
        except distributed.KilledWorker as exc:
            raise ExecutorError(
                f"Dask workers kept dying while playing a chunk ({exc}); see the workers' logs"
            ) from None
        finally:
            client.cancel([future for future in futures if not future.done()])

    def slots(self) -> int:
        """The threads of the workers connected now (at least 1)."""
        threads: dict[str, int] = self._connected().nthreads()
        return max(1, sum(threads.values()))

    def _connected(self) -> Any:
        if self._client is None:
            raise RuntimeError("enter the executor (`with executor:`) before running on it")
        return self._client


def _configured_connect_timeout() -> float:
    """Dask's ``distributed.comm.timeouts.connect``, in seconds."""
    import dask
    from dask.utils import parse_timedelta

    value = dask.config.get("distributed.comm.timeouts.connect")
    return float(parse_timedelta(value, default="seconds"))


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ExecutorError(
            f"--executor dask:// needs the distributed package: {INSTALL_HINT}"
        ) from None
    return distributed


def parse_executor(text: str | None) -> Executor | None:
    """The executor ``--executor`` names: None for ``local`` or nothing (the run plays in this
    process, as it always has), a :class:`DaskExecutor` for ``dask://<host>:<port>``."""
    if text is None or text == "local":
        return None
    usage = "expected local or dask://<host>:<port>, e.g. dask://127.0.0.1:8786"
    try:
        url = urlsplit(text)
        port = url.port
    except ValueError:
        raise ExecutorError(f"--executor {text!r}: bad port; {usage}") from None
    if url.scheme != "dask" or not url.hostname or port is None or url.path not in ("", "/"):
        raise ExecutorError(f"--executor {text!r}: {usage}")
    host = f"[{url.hostname}]" if ":" in url.hostname else url.hostname
    return DaskExecutor(f"tcp://{host}:{port}")
