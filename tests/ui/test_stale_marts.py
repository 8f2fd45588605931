"""Marts older than the raw files (an ``aggregate``, then ``--resume --no-aggregate``) are
never shown as current: the reader finds the changed files and the viewer shows a banner
with the command that rebuilds the tables."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from pdbench.arena.records import ArenaFiles
from pdbench.model_text import escaped
from pdbench.pd.records import PDFiles
from pdbench.storage.marts_manifest import MARTS_MANIFEST
from pdbench.storage.schema import RunFiles
from pdbench.ui.run_check import ViewableRun, check_run
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP


@pytest.fixture
def run_copy(pd_run: Path, tmp_path: Path) -> Path:
    """The session's aggregated PD run, copied with its files' times."""
    copy = tmp_path / "run"
    shutil.copytree(pd_run, copy)
    return copy


def _viewable(run_dir: Path) -> ViewableRun:
    checked = check_run(run_dir)
    assert isinstance(checked, ViewableRun), checked
    return checked


def _grow(path: Path) -> None:
    """What a resume does to a raw file: a line more (the manifest: one more resume)."""
    if path.name == RunFiles.MANIFEST:
        manifest = json.loads(path.read_text())
        manifest["resumed_at"].append(manifest["started_at"])
        path.write_text(json.dumps(manifest, indent=2))
        return
    lines = path.read_text().splitlines(keepends=True)
    with path.open("a") as handle:
        handle.write(lines[-1])


def test_marts_built_from_the_files_as_they_are_are_current(run_copy: Path):
    assert (run_copy / MARTS_MANIFEST).is_file()
    run = _viewable(run_copy)
    assert run.stale == () and run.stale_message is None


@pytest.mark.parametrize("changed", [PDFiles.ROUNDS, RunFiles.MANIFEST])
def test_a_raw_file_changed_after_aggregate_makes_the_marts_stale(run_copy: Path, changed: str):
    _grow(run_copy / changed)
    run = _viewable(run_copy)
    assert run.stale == (changed,)
    assert f"({changed} changed since they were built)" in (run.stale_message or "")
    assert run.aggregate_command == f"uv run pdbench aggregate {run_copy}"


def test_a_raw_file_that_appeared_makes_the_marts_stale(run_copy: Path):
    (run_copy / ArenaFiles.AUDIENCE_VOTES).write_text("")
    assert _viewable(run_copy).stale == (ArenaFiles.AUDIENCE_VOTES,)


def test_the_viewer_shows_the_banner_and_the_command(
    run_copy: Path, monkeypatch: pytest.MonkeyPatch
):
    _grow(run_copy / PDFiles.ROUNDS)
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_copy)])
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any(escaped("older than the run's raw files") in w.value for w in at.warning)
    assert f"pdbench aggregate {run_copy}" in next(c.value for c in at.code)


def test_a_failed_build_is_recorded_and_shown_instead_of_the_old_tables(run_copy: Path):
    """A data test that fails after the play (a payoff written as text) leaves the old
    tables in place; the viewer says their last build failed, and why, not that they are
    current."""
    from pdbench.aggregate import aggregate_run
    from pdbench.errors import AggregationError

    rounds = run_copy / PDFiles.ROUNDS
    lines = rounds.read_text().splitlines(keepends=True)
    first = json.loads(lines[0])
    first["agent_a_payoff"] = str(first["agent_a_payoff"])
    rounds.write_text(json.dumps(first) + "\n" + "".join(lines[1:]))
    with pytest.raises(AggregationError) as failed:
        aggregate_run(run_copy)
    run = _viewable(run_copy)
    assert run.build_failure == str(failed.value).splitlines()[0]
    assert "agent_a_payoff" in run.build_failure
    assert (run.stale_message or "").startswith("The last build of this run's tables failed")
    # a build that then succeeds clears it
    rounds.write_text("".join(lines))
    aggregate_run(run_copy)
    run = _viewable(run_copy)
    assert run.build_failure is None and run.stale_message is None
