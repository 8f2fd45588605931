"""A real Dask cluster on 127.0.0.1 for the tests: a ``dask scheduler`` process and worker
processes (``dask worker --no-nanny``: the process started is the worker itself, so killing
it kills the worker), all from this virtual environment, so every worker imports pdbench."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.servers.local import SAFETY_NET_S

DASK = str(Path(sys.executable).parent / "dask")
START_TIMEOUT_S = SAFETY_NET_S


@dataclass
class LocalDaskCluster:
    """The scheduler's address and the worker processes."""

    address: str
    workers: list[subprocess.Popen[bytes]]

    @property
    def url(self) -> str:
        """The scheduler as ``--executor`` takes it."""
        return self.address.replace("tcp://", "dask://")


def _started(command: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as handle:
        return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=30)


def _scheduler_address(scheduler_file: Path) -> str:
    """The address the scheduler writes into ``scheduler_file``, once the file holds it whole:
    the file appears before its content does, so it is read until it parses."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        try:
            return str(json.loads(scheduler_file.read_text(encoding="utf-8"))["address"])
        except (OSError, ValueError, KeyError):
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)


@contextmanager
def local_dask_cluster(folder: Path, *, workers: int) -> Iterator[LocalDaskCluster]:
    """Start a scheduler and ``workers`` single-threaded worker processes; stop them all
    (whatever is left of them) when the block ends."""
    from distributed import Client

    folder.mkdir(parents=True, exist_ok=True)
    scheduler_file = folder / "scheduler.json"
    with ExitStack() as stack:
        scheduler = _started(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)],
            folder / "scheduler.log",
        )  # fmt: skip
        stack.callback(_stop, scheduler)
        address = _scheduler_address(scheduler_file)
        processes = []
        for n in range(workers):
            worker = _started(
                [DASK, "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard",
                 "--name", f"worker-{n}", "--local-directory", str(folder / f"worker-{n}")],
                folder / f"worker-{n}.log",
            )  # fmt: skip
            stack.callback(_stop, worker)
            processes.append(worker)
        with Client(address, timeout=START_TIMEOUT_S, set_as_default=False) as client:
            client.wait_for_workers(workers, timeout=START_TIMEOUT_S)
        yield LocalDaskCluster(address=address, workers=processes)
