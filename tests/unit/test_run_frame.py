"""The run frame (:mod:`pdbench.run.frame`): the same lock, start or resume, manifest
lifecycle and wrap-up around any game's play."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.errors import RunDirError
from pdbench.run.frame import RunSpec, play_run
from pdbench.run.inputs import RunInputs
from pdbench.run.run_dir import LiveManifest
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunManifest, RunStatus
from pydantic import BaseModel


class _Config(BaseModel):
    run_id: str = "frame"
    seed: int = 7
    flips: int = 3


class _Play:
    """A game that writes nothing but records what the frame asked of it."""

    def __init__(self, *, fail: BaseException | None = None) -> None:
        self.fail = fail
        self.events: list[tuple[str, str | None]] = []

    def start(self, manifest: RunManifest) -> RunManifest:
        self.events.append(("start", manifest.status))
        return manifest

    def resume(self, manifest: RunManifest) -> RunManifest:
        self.events.append(("resume", manifest.status))
        return manifest

    def play(self, live: LiveManifest) -> None:
        on_disk = read_manifest(live.run_dir).status
        self.events.append(("play", on_disk))
        if self.fail is not None:
            raise self.fail

    def close(self, status: RunStatus) -> None:
        self.events.append(("close", status))

    def counts(self) -> dict[str, int]:
        self.events.append(("counts", None))
        return {"flips": 3}


def _spec(run_dir: Path, config: _Config | None = None) -> RunSpec:
    return RunSpec(
        game="pd",
        config=config or _Config(),
        config_path="configs/frame.yaml",
        run_dir=run_dir,
        inputs=RunInputs(),
        metric_params={"window": 2},
    )


def test_a_new_run_is_started_played_closed_and_counted_in_that_order(tmp_path: Path) -> None:
    play = _Play()
    result = play_run(_spec(tmp_path / "run"), play, resume=False, overwrite=False)
    assert play.events == [
        ("start", "running"),
        ("play", "running"),
        ("close", "completed"),
        ("counts", None),
    ]
    manifest = read_manifest(tmp_path / "run")
    assert (manifest.status, manifest.counts, manifest.failure) == ("completed", {"flips": 3}, None)
    assert manifest.metric_params == {"window": 2} and manifest.config["flips"] == 3
    assert result.counts == {"flips": 3} and result.manifest.status == "completed"


def test_ctrl_c_is_recorded_as_interrupted_and_resume_continues_it(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    stopped = _Play(fail=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        play_run(_spec(run_dir), stopped, resume=False, overwrite=False)
    assert ("close", "interrupted") in stopped.events
    assert read_manifest(run_dir).status == "interrupted"

    again = _Play()
    play_run(_spec(run_dir), again, resume=True, overwrite=False)
    assert [name for name, _ in again.events] == ["resume", "play", "close", "counts"]
    assert again.events[0] == ("resume", "interrupted")  # the stopped run's manifest
    manifest = read_manifest(run_dir)
    assert manifest.status == "completed" and len(manifest.resumed_at) == 1


def test_another_error_is_recorded_as_failed_in_one_line(tmp_path: Path) -> None:
    play = _Play(fail=ValueError("the coin\nlanded on its edge"))
    with pytest.raises(ValueError):
        play_run(_spec(tmp_path / "run"), play, resume=False, overwrite=False)
    manifest = read_manifest(tmp_path / "run")
    assert manifest.status == "failed"
    assert manifest.failure == "ValueError: the coin landed on its edge"


def test_resume_with_another_config_is_refused_before_the_game_is_asked(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        play_run(_spec(run_dir), _Play(fail=KeyboardInterrupt()), resume=False, overwrite=False)
    other = _Play()
    with pytest.raises(RunDirError, match="the config differs"):
        play_run(_spec(run_dir, _Config(flips=4)), other, resume=True, overwrite=False)
    assert other.events == []
    assert read_manifest(run_dir).status == "interrupted"


def test_a_finished_run_is_replaced_only_with_overwrite(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    play_run(_spec(run_dir), _Play(), resume=False, overwrite=False)
    refused = _Play()
    with pytest.raises(RunDirError, match="already exists"):
        play_run(_spec(run_dir), refused, resume=False, overwrite=False)
    assert refused.events == []
    replaced = _Play()
    play_run(_spec(run_dir), replaced, resume=False, overwrite=True)
    assert replaced.events[0] == ("start", "running")
