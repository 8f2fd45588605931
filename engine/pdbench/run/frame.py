"""The run frame: one sequence for every run of every game, local, sharded or arena.

1. check the run directory as it is (:func:`~pdbench.run.run_dir.check_run_dir`): a folder
   the run may not use is refused before anything is made in it, not even a lock file; then
   hold its lock (:func:`pdbench.storage.run_lock.hold_run_dir`);
2. start or resume: a new run empties the directory (:func:`~pdbench.run.run_dir.prepare_run_dir`)
   and starts from a new manifest; a resumed one checks that the config and its inputs are
   the ones the run started with (:func:`~pdbench.run.run_dir.resumable_manifest`); the game
   then prepares its own part (:meth:`GamePlay.start` or :meth:`GamePlay.resume`: which
   matches, chunks or phases are left) and the manifest runs again;
3. the manifest's lifecycle (:func:`~pdbench.run.run_dir.manifest_lifecycle`): written
   ``running``, the game plays (:meth:`GamePlay.play`), then ``completed``, ``interrupted``
   or ``failed``;
4. wrap-up, whatever happened: the calls a stopped run no longer waits for are abandoned, the
   game closes its files (:meth:`GamePlay.close`), a runtime the run built closes its cache,
   and the manifest gets the game's counts (:meth:`GamePlay.counts`).

The game supplies start, play and counts; it never touches the lock nor the manifest's
status.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pdbench.config.loader import LoadedConfig
from pdbench.config.providers import ProviderAccessConfig
from pdbench.providers.runtime import ProviderRuntime
from pdbench.run.inputs import RunInputs, run_inputs
from pdbench.run.run_dir import (
    LiveManifest,
    RunConfig,
    RunResult,
    check_run_dir,
    manifest_lifecycle,
    new_run_manifest,
    prepare_run_dir,
    resumable_manifest,
    resumed,
)
from pdbench.storage.manifest import canonical_sha256
from pdbench.storage.run_lock import hold_run_dir
from pdbench.storage.schema import RunManifest, RunStatus

__all__ = ["GamePlay", "RunSpec", "play_run"]


@dataclass(frozen=True)
class RunSpec:
    """What the frame needs to know of a run before it plays."""

    game: str
    """The game's name, as the manifest records it."""
    config: RunConfig
    """The config played (its run id, seed and snapshot)."""
    config_path: str
    """Where the config was read from."""
    run_dir: Path
    inputs: RunInputs
    """The files the config reads and the servers it reaches (checked again on resume)."""
    metric_params: dict[str, Any] | None = None
    """What the game's SQL reads from the manifest (PD)."""
    scoring: dict[str, Any] | None = None
    """What the game's SQL reads from the manifest (arena)."""

    @property
    def config_sha256(self) -> str:
        """The sha256 of the config's canonical snapshot."""
        return canonical_sha256(self.config.model_dump(mode="json"))

    @classmethod
    def of(
        cls,
        game: str,
        loaded: LoadedConfig,
        config: RunConfig,
        *,
        run_dir: Path,
        llms: Iterable[tuple[str, ProviderAccessConfig]],
        metric_params: dict[str, Any] | None = None,
        scoring: dict[str, Any] | None = None,
    ) -> RunSpec:
        """The run of ``config`` (read through ``loaded``) into ``run_dir``, its LLMs
        ``(config field, settings)``, whose files and servers are its inputs."""
        return cls(
            game=game,
            config=config,
            config_path=loaded.path,
            run_dir=run_dir,
            inputs=run_inputs(loaded.inputs, llms),
            metric_params=metric_params,
            scoring=scoring,
        )


class GamePlay(Protocol):
    """What a game supplies to the frame for one run."""

    def start(self, manifest: RunManifest) -> RunManifest:
        """Prepare a new run (the directory is empty): the manifest to run with."""
        ...

    def resume(self, manifest: RunManifest) -> RunManifest:
        """Prepare to continue the stopped run whose manifest is ``manifest``: drop what was
        not finished; the manifest to run with."""
        ...

    def play(self, live: LiveManifest) -> None:
        """Play what is left; ``live`` takes the manifest's updates while playing."""
        ...

    def close(self, status: RunStatus) -> None:
        """Close the files the run writes (the run ended with ``status``)."""
        ...

    def counts(self) -> dict[str, int]:
        """The manifest's counts: records written, kept ones included."""
        ...


def play_run(
    spec: RunSpec,
    game: GamePlay,
    *,
    resume: bool,
    overwrite: bool,
    runtime: ProviderRuntime | None = None,
    owns_runtime: bool = False,
) -> RunResult:
    """Run ``game`` into ``spec.run_dir`` within the frame (see module): ``resume`` continues
    a stopped run, ``overwrite`` replaces a finished one; ``runtime`` is the provider runtime
    the run's calls go through (closed at the end when ``owns_runtime``)."""
    run_dir = spec.run_dir
    check_run_dir(
        run_dir,
        resume=resume,
        overwrite=overwrite,
        config_sha256=spec.config_sha256,
        inputs=spec.inputs,
    )
    with hold_run_dir(run_dir, create=not resume):
        manifest = _started(spec, game, resume=resume, overwrite=overwrite)
        if runtime is not None:
            runtime.cancel.clear()

        def wrap_up(status: RunStatus) -> dict[str, int]:
            if runtime is not None:
                runtime.abandon_in_flight()  # calls a stopped run no longer waits for
            game.close(status)
            if owns_runtime and runtime is not None and runtime.cache is not None:
                runtime.cache.close()
            return game.counts()

        with manifest_lifecycle(run_dir, manifest, on_end=wrap_up) as live:
            game.play(live)
        return RunResult(run_dir=run_dir, manifest=live.manifest, counts=live.manifest.counts)


def _started(spec: RunSpec, game: GamePlay, *, resume: bool, overwrite: bool) -> RunManifest:
    """The manifest the run plays with: the stopped run's, running again, or a new one."""
    sha256 = spec.config_sha256
    if resume:
        stopped = resumable_manifest(spec.run_dir, config_sha256=sha256, inputs=spec.inputs)
        return resumed(game.resume(stopped))
    prepare_run_dir(spec.run_dir, overwrite=overwrite, config_sha256=sha256)
    return game.start(
        new_run_manifest(
            spec.config,
            game=spec.game,
            config_path=spec.config_path,
            metric_params=spec.metric_params,
            scoring=spec.scoring,
            inputs=spec.inputs,
        )
    )
