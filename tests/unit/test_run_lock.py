"""The run lock is the kernel's lock on ``.pdbench.lock``, never what that file says: a file
left by a writer that ended, naming a pid that is now another running process, locks nothing;
a writer holding the lock is refused while it holds it, named by the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pdbench.errors import RunDirError
from pdbench.storage.run_lock import LOCK_FILE, hold_run_dir


def test_a_lock_file_naming_a_running_process_that_holds_no_lock_is_no_lock(tmp_path: Path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    # the pid of a process that runs (this one's parent), as a stale file would name it
    (run_dir / LOCK_FILE).write_text(f"pid {os.getppid()}: pdbench run configs/experiment.yaml\n")
    with hold_run_dir(run_dir):
        assert (run_dir / LOCK_FILE).read_text().startswith(f"pid {os.getpid()}: ")


def test_a_writer_holding_the_lock_in_another_process_is_refused_naming_it(tmp_path: Path):
    run_dir = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys\nfrom pathlib import Path\nfrom pdbench.storage.run_lock import hold_run_dir\n"
         f"with hold_run_dir(Path({str(run_dir)!r}), create=True):\n"
         "    print('held', flush=True)\n    sys.stdin.read()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"  # waits until the lock is held
        with pytest.raises(RunDirError) as refused, hold_run_dir(run_dir):
            pass
        assert str(refused.value).startswith(
            f"{run_dir}: in use by another pdbench process (pid {holder.pid}: "
        )
    finally:
        holder.stdin.close()
        holder.wait()
    assert holder.returncode == 0
    with hold_run_dir(run_dir):  # released with its process
        pass
