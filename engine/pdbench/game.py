"""What a game is to the rest of pdbench: one object, registered once in :mod:`pdbench.games`.

The command line, ``pdbench aggregate`` and the viewer know no game by name: they ask the
:class:`Game` of the config (or of the run directory's manifest) for everything that differs
between games, and a command only one game has is that game's own (``commands``). A
game's package provides one subclass of :class:`Game` and the pieces it names:

- ``config_model``: the pydantic model of its experiment file (``game: <name>``);
- ``records``: the raw records it writes (their files and pydantic models), from which the
  written lines, ``pdbench schema`` and dbt's sources (its ``source('<name>', ...)``) follow;
- ``check_providers``, ``summary_lines``, ``plan_lines``: what ``validate`` and ``--dry-run``
  check and print;
- ``play``: the run itself, into a run directory (it returns a :class:`RunResult`);
- ``marts``: the raw files its dbt models read, the dbt tag that selects them, and the short
  table ``aggregate`` prints;
- ``viewer``: ``"module:function"`` drawing its pages (imported only by the viewer);
- ``commands``: ``"module:function"`` adding its own commands to ``pdbench`` (the PD's
  ``compare`` and ``compare-runs``, the arena's ``leaderboard``), listed after ``aggregate``;
- ``power``: ``"module:function"`` planning a study of the game (``pdbench power``);
- ``series``: a folder gathering several of its runs, if the game has one (the arena's
  ``pdbench leaderboard``): the file that marks it, and its viewer page, overview and report.

Its mock player, if it has LLM players, is its own too: the config of such a player tells the
mock provider how to answer (:class:`pdbench.providers.mock.MockSource`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypedDict

from pydantic import BaseModel

from pdbench.config.loader import LoadedConfig
from pdbench.errors import ConfigError
from pdbench.run.executors import Executor
from pdbench.run.run_dir import RunResult
from pdbench.storage.records.files import RecordSource

__all__ = [
    "Game",
    "Marts",
    "PlayOptions",
    "ProgressCallback",
    "RunResult",
    "RunnerArguments",
    "Series",
    "imported",
]

ProgressCallback = Callable[[str, int, int, str], None]
"""``(bar, done, total, detail)``: one progress bar per ``bar`` name (``matches``, or a phase
of the arena), called in the thread that plays."""


class RunnerArguments(TypedDict):
    """The flags of ``pdbench run`` every game's runner takes as they are."""

    output_dir: Path | None
    overwrite: bool
    resume: bool
    use_cache: bool


@dataclass(frozen=True)
class PlayOptions:
    """How ``pdbench run`` asks a game to play (the flags every game shares)."""

    output_dir: Path | None = None
    overwrite: bool = False
    resume: bool = False
    use_cache: bool = True
    on_progress: ProgressCallback | None = None
    on_line: Callable[[str], None] | None = None
    """Receives a line worth keeping on the terminal (e.g. a phase finished)."""
    executor: Executor | None = None
    """Where the run is played in chunks (``--executor``); None: in this process."""
    chunk_rounds: int | None = None
    """Planned rounds per chunk with an executor (``--chunk-rounds``); None: the game's
    default."""

    def runner_arguments(self) -> RunnerArguments:
        """The flags a game's runner takes as they are (progress is the game's to report)."""
        return RunnerArguments(
            output_dir=self.output_dir,
            overwrite=self.overwrite,
            resume=self.resume,
            use_cache=self.use_cache,
        )


@dataclass(frozen=True)
class Marts:
    """What ``pdbench aggregate`` builds for a game."""

    dbt_tag: str
    """The dbt tag of the game's models, tests and unit tests."""
    first_records: str
    """The raw file that holds records as soon as the run has played anything."""
    required_files: tuple[str, ...]
    """Raw files that must exist in the run directory."""
    non_empty_files: tuple[str, ...] = ()
    """Of which those that must hold at least one record."""
    other_first_records: tuple[str, ...] = ()
    """Raw files that hold a run's records in place of ``first_records`` (an arena run of
    pairwise verdicts only, such as an imported Language Model Council); a run with records
    in any of them has played something."""
    dbt_threads: int = 1
    """Models dbt builds side by side."""
    one_duckdb_thread_when_small: bool = False
    """Build a run whose raw files are small with one DuckDB thread
    (:data:`pdbench.dbt_build.execute.ONE_THREAD_BYTES`): less CPU, and the same marts only
    where no mart's row order depends on DuckDB's threads (the PD's; some arena marts leave
    ties in their order, which one thread breaks differently)."""
    viewer_marts: tuple[str, ...] = ()
    """The mart files an aggregated run holds (the game's
    :class:`~pdbench.storage.marts.MartFile` list), which the viewer reads; a run without one
    of them (aggregated by an older pdbench, or not at all)
    is shown as not aggregated yet."""
    summary: Callable[[Path, dict[str, int]], list[str]] | None = None
    """``(run_dir, rows per mart) -> lines``: the short table ``aggregate`` prints."""
    absent_content: Callable[[Path], tuple[str, ...]] | None = None
    """``run_dir -> dbt tags``: the models the run has no input for (tagged in
    ``dbt_project/dbt_project.yml``), left out of its build; their marts are written empty
    (:mod:`pdbench.empty_marts`). None: every model of the game is built."""
    dbt_models: Path | None = None
    """The folder of the game's dbt models when they live outside pdbench's dbt project (a
    game registered from its own package); None: they are in ``dbt_project/models``."""


def imported(path: str) -> Callable[..., Any]:
    """The function a ``"module:function"`` path names (a game's ``viewer``, ``overview``,
    ...), its module imported now."""
    module_name, _, function_name = path.partition(":")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), function_name)
    return function


@dataclass(frozen=True)
class Series:
    """A folder gathering several finished runs of one game, measured across them (the
    arena's ``pdbench leaderboard`` writes one): what marks it and how it is shown."""

    manifest: str
    """The file in the folder that marks it as a series (and says what it was built from)."""
    title: str
    """What it is, in a few words (``series of arena tournaments``)."""
    viewer: str
    """``"module:function"``: ``function(series_dir)`` draws its page of the viewer."""
    overview: str
    """``"module:function"``: ``function(series_dir)`` returns the sentences of its overview."""
    report_sections: str
    """``"module:function"``: ``function(series_dir)`` returns its charts and tables in
    ``pdbench report``."""


class Game:
    """One game. Subclasses set the class attributes and override the methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]
    records: ClassVar[RecordSource | None] = None
    """The raw records the game writes (besides every run's,
    :data:`~pdbench.storage.records.files.RUN_RECORDS`); None: none with a contract (a game
    registered from its own package may keep its files to itself)."""
    marts: ClassVar[Marts]
    viewer: ClassVar[str]
    """``"module:function"``: ``function(run)`` draws the game's pages of the viewer."""
    overview: ClassVar[str] = ""
    """``"module:function"``: ``function(run_dir, manifest)`` returns the sentences of the
    run's overview (:mod:`pdbench.overview`); empty: the game has none."""
    report_sections: ClassVar[str] = ""
    """``"module:function"``: ``function(run_dir)`` returns the charts and tables of the
    game in ``pdbench report`` (:mod:`pdbench.report`); empty: the overview alone."""
    example_config: ClassVar[str]
    """The config the README runs for this game (named in the viewer's hints)."""
    series: ClassVar[Series | None] = None
    """The folder gathering several runs of the game, if it has one."""
    power: ClassVar[str] = ""
    """``"module:function"``: ``function(loaded, request, *, pilot, on_line)`` returns what
    ``pdbench power`` prints for a config of the game (:class:`pdbench.power.text.PowerRequest`;
    ``pilot`` a run directory or None; progress lines to ``on_line``); empty: the game plans no
    study."""
    commands: ClassVar[str] = ""
    """``"module:function"``: ``function(app)`` adds the game's own commands to the
    ``typer.Typer`` of ``pdbench`` (with :func:`pdbench.cli.help.command`), importing what
    they run inside their bodies; empty: the game has none. Called, in the registry's order,
    when :func:`pdbench.cli.build_app` builds the command."""

    def check_providers(self, loaded: LoadedConfig, *, keys: bool = True) -> None:
        """Fail before anything is written when a player's provider cannot be built here."""

    def with_replicates(self, loaded: LoadedConfig, replicates: int) -> LoadedConfig:
        """``loaded`` with ``replicates`` (``--replicates``); only games with replicates."""
        raise ConfigError(f"--replicates does not apply to game {self.name}", path=loaded.path)

    def check_executor(self, loaded: LoadedConfig) -> None:
        """Refuse, in one line, an executor (``--executor``) this config cannot be played on;
        only games that play in chunks accept one."""
        raise ConfigError(
            f"--executor does not apply to game {self.name}: it plays in one process "
            "(drop --executor)",
            path=loaded.path,
        )

    def summary_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        """What the config asks for, as ``validate`` and ``--dry-run`` print it."""
        return []

    def plan_lines(self, loaded: LoadedConfig, *, run_dir: Path) -> list[str]:
        """What ``--dry-run`` adds: the work planned, calls and cost. The first line says
        what the run would write."""
        return [f"dry run: would play into {run_dir}"]

    def needs_dbt_while_playing(self, loaded: LoadedConfig) -> bool:
        """Whether playing reads dbt models (then dbt is started before the play)."""
        return False

    def play(self, loaded: LoadedConfig, *, options: PlayOptions) -> RunResult:
        """Play the run into its run directory."""
        raise NotImplementedError

    def result_line(self, result: RunResult) -> str:
        """One line on what the run wrote: its id, its status, :meth:`counts_text`, where."""
        manifest = result.manifest
        counts = self.counts_text(result.counts)
        return f"run {manifest.run_id} {manifest.status}: {counts} -> {result.run_dir}"

    def counts_text(self, counts: dict[str, int]) -> str:
        """The run's counts (the manifest's) as :meth:`result_line` says them."""
        return ", ".join(f"{value} {name}" for name, value in counts.items())

    def run_dir(self, loaded: LoadedConfig, output_dir: Path | None) -> Path:
        """The run directory: ``output_dir`` when given, else the config's."""
        config: Any = loaded.config
        run_dir: Path = config.run_dir(output_dir)
        return run_dir
