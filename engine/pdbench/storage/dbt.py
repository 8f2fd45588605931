"""Run the repository's dbt project on one run directory.

The one place pdbench calls dbt: ``pdbench aggregate`` builds every model of a game
(:mod:`pdbench.aggregate`), and the arena's question filter runs the question models
between rating and answering.

dbt runs in a process of its own (:mod:`pdbench.storage.dbt_worker`), one per pdbench
process, started by the first call or ahead of it by :func:`prepare_dbt`: ``pdbench run``
calls that before it plays, so that importing dbt and parsing the project, which take
seconds, happen on another core meanwhile. The process holds dbt's memory (DuckDB's, on a
large run) and gives it back when it ends; it ends with pdbench. When a persistent worker
serves this project (``pdbench worker start``, :mod:`pdbench.storage.dbt_daemon`), the
requests go to it instead (:mod:`pdbench.storage.worker_socket`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, Literal

from pdbench.errors import AggregationError
from pdbench.storage.dbt_plan import has_plans, plan_file
from pdbench.storage.dbt_replay import replay
from pdbench.storage.jsonl import cut_torn_tails
from pdbench.storage.run_links import refuse_outside_links
from pdbench.storage.worker_socket import (
    Connection,
    WorkerFiles,
    connect,
    project_key,
    read_state,
)

__all__ = [
    "DBT_PROJECT_DIR",
    "GAME_MODELS_ENV",
    "DbtProcess",
    "DbtRequest",
    "DbtResults",
    "add_game_models",
    "dbt_project_key",
    "invoke_dbt",
    "prepare_dbt",
    "prune_saved_parses",
    "saved_parse_path",
    "worker_files",
]

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""
RUN_RESULTS_ENV = "PDBENCH_DBT_RUN_RESULTS"
"""A folder to write each dbt invocation's results into (:mod:`pdbench.storage.dbt_worker`)."""
GAME_MODELS_ENV = "PDBENCH_GAME_MODELS"
"""The folder of dbt models of games registered from outside pdbench (``model-paths`` in
``dbt_project.yml``); unset when there are none."""

OUTSIDE_GAMES_DIR = "outside_games"
"""Where, in the dbt project, the links to outside games' models are made (git-ignored)."""
_game_model_folders: dict[str, Path] = {}
"""Game name -> the folder of its dbt models, for games whose models live outside the
project (:func:`add_game_models`)."""


@dataclass(frozen=True)
class DbtRequest:
    """One dbt invocation on one run directory."""

    command: Literal["build", "run"]
    run_dir: Path
    select: str
    """dbt's ``--select``, e.g. ``tag:pd``."""
    exclude: str | None = None
    """dbt's ``--exclude``, e.g. ``tag:pd_round_robin tag:pd_calls`` (None: nothing)."""
    threads: int | None = None
    """Models built side by side (None: the profile's)."""
    unit_tests: bool = False
    """Also run the unit tests (``build`` only)."""
    one_duckdb_thread_when_small: bool = False
    """One DuckDB thread if the run's raw files are small
    (:func:`pdbench.storage.dbt_plan.duckdb_threads`); DuckDB's default otherwise."""
    gathered_checks: bool = False
    """Run the data tests of the models' YAML gathered, one test node per game and content
    tag (``dbt_project/macros/gathered_checks.sql``), instead of one node each (``build`` of
    a game's whole tag only: the gathering tests read the game's last models)."""
    record_plan: str | None = None
    """Where to keep what dbt sends DuckDB for this request, to replay it in later builds
    (:mod:`pdbench.storage.dbt_plan`; None: nothing is kept)."""

    def to_json(self) -> str:
        """The request as the worker reads it: one JSON line; the run directory absolute,
        as the worker keeps the working directory it was started in."""
        return json.dumps(asdict(self) | {"run_dir": str(Path(self.run_dir).resolve())})


@dataclass(frozen=True)
class DbtResults:
    """What one dbt invocation wrote and checked."""

    locations: list[str]
    """Files written by the external (Parquet) models."""
    n_checks_passed: int
    """Unit tests and data tests that passed."""
    n_unit_tests_passed: int
    """Of which unit tests."""
    models: tuple[str, ...] = ()
    """The models built, by name."""
    cut: tuple[str, ...] = ()
    """Torn last lines cut off the run's JSONL files before dbt read them, one phrase each."""
    location_tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Each file of :attr:`locations` -> the dbt tags of the model that wrote it."""
    replayed: bool = False
    """Built by replaying what dbt sent DuckDB for the same request before
    (:mod:`pdbench.storage.dbt_replay`), without dbt."""


class DbtProcess:
    """A dbt worker process: it imports dbt as soon as it starts (and parses the project
    while nothing is asked of it), then runs the invocations it is given, one at a time."""

    def __init__(self) -> None:
        if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
            raise AggregationError(f"dbt project not found at {DBT_PROJECT_DIR}")
        self.game_models = _game_models_dir()
        """The outside games' models this process parsed (None: none)."""
        self._lock = threading.Lock()
        self._idle = False
        """Answered every request it was given: it ends by itself at the end of its input."""
        self.persistent: Connection | None = None
        """The connection to the persistent worker (``pdbench worker start``), when one runs
        for this project and serves nobody else (outside games' models: never)."""
        if self.game_models is None and read_state(worker_files()) is not None:
            # the project's key (about 0.1 s) only when a persistent worker runs
            self.persistent = connect(worker_files(), project_key(DBT_PROJECT_DIR))
        self._process = None if self.persistent is not None else self._start(self.game_models)

    @staticmethod
    def _start(game_models: str | None) -> subprocess.Popen[str]:
        env = dict(os.environ)
        env.pop(GAME_MODELS_ENV, None)
        # the worker dies with this process (see pdbench.storage.dbt_worker); the kernel's
        # death signal follows the starting *thread*, so it is asked for only from the main one
        env["PDBENCH_DBT_PARENT"] = str(os.getpid())
        main_thread = threading.current_thread() is threading.main_thread()
        env["PDBENCH_DBT_DEATH_SIGNAL"] = "1" if main_thread else "0"
        if game_models is not None:
            env[GAME_MODELS_ENV] = game_models
        return subprocess.Popen(
            [sys.executable, "-m", "pdbench.storage.dbt_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            # out of the terminal's process group: a Ctrl-C reaches pdbench alone, which
            # then stops this process (see close)
            start_new_session=True,
            env=env,
        )

    @property
    def is_alive(self) -> bool:
        if self.persistent is not None:
            return self.persistent.sock.fileno() != -1
        return self._process is not None and self._process.poll() is None

    def _streams(self) -> tuple[IO[str], IO[str]]:
        if self.persistent is not None:
            return self.persistent.requests, self.persistent.answers
        assert self._process is not None
        assert self._process.stdin is not None and self._process.stdout is not None
        return self._process.stdin, self._process.stdout

    def invoke(self, request: DbtRequest) -> DbtResults:
        """See :func:`invoke_dbt`."""
        requests, answers = self._streams()
        line = request.to_json()
        if self.persistent is not None:  # the worker's environment is not this process's
            env = {RUN_RESULTS_ENV: os.environ.get(RUN_RESULTS_ENV)}
            line = json.dumps(json.loads(line) | {"env": env})
        with self._lock:
            self._idle = False
            try:
                requests.write(line + "\n")
                requests.flush()
                line = answers.readline()
            except OSError:
                line = ""
            self._idle = bool(line)
        if not line:
            raise AggregationError(f"dbt {request.command} on {request.run_dir}: {self._ended()}")
        answer = json.loads(line)
        if "error" in answer:
            raise AggregationError(answer["error"])
        return DbtResults(
            locations=list(answer["locations"]),
            n_checks_passed=int(answer["n_checks_passed"]),
            n_unit_tests_passed=int(answer["n_unit_tests_passed"]),
            models=tuple(answer.get("models", ())),
            location_tags={
                location: tuple(tags) for location, tags in answer.get("location_tags", {}).items()
            },
        )

    def _ended(self) -> str:
        """Why no answer came."""
        if self.persistent is not None:
            self.persistent.close()
            return (
                f"the persistent dbt worker (pid {self.persistent.pid}) ended unexpectedly "
                f"(its output: {worker_files().log}; `pdbench worker start` starts it again)"
            )
        assert self._process is not None
        code = self._process.wait()
        return (
            f"the dbt process ended unexpectedly (exit code {code}; a negative code is the "
            "signal that stopped it, -9 often means it ran out of memory)"
        )

    @property
    def exit_code(self) -> int | None:
        """The private process's exit code once it has ended (143 or -15: stopped by
        SIGTERM); None while it runs, and for the persistent worker."""
        return None if self._process is None else self._process.poll()

    def close(self, timeout: float = 10.0) -> None:
        """End the process: one that answered every request ends by itself at the end of its
        input; one still importing dbt, parsing or building (pdbench failed or was
        interrupted) is stopped at once (SIGTERM). Either way it removes its folders; it is
        killed if it has not ended after ``timeout`` seconds. The persistent worker is only
        left, and ends if it was building (:mod:`pdbench.storage.dbt_daemon`)."""
        if self.persistent is not None:
            self.persistent.close()
            return
        assert self._process is not None
        if self._process.stdin is not None and not self._process.stdin.closed:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        if not self._idle and self._process.poll() is None:
            self._process.terminate()
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._process.stdout is not None:
            self._process.stdout.close()


_shared: DbtProcess | None = None
_shared_lock = threading.Lock()


def prepare_dbt() -> None:
    """Start this process's dbt worker now, so that it is ready by the first invocation;
    unless builds of this project are replayed (:mod:`pdbench.storage.dbt_plan`: a plan of
    it is kept), when dbt starts only if a replay cannot serve."""
    if not _game_model_folders and has_plans(dbt_project_key()):
        return
    _shared_process()


@functools.cache
def dbt_project_key() -> str:
    """The dbt project's key (:func:`project_key`), once per process: about 0.1 s."""
    return project_key(DBT_PROJECT_DIR)


def invoke_dbt(request: DbtRequest) -> DbtResults:
    """Run ``dbt <command> --select <select>`` on the request's run directory.

    dbt's unit tests check the SQL on hand-made inputs, whatever the run: ``build`` runs them
    only with ``unit_tests=True`` (the test suite does), and its data tests always.
    DuckDB reads the run's JSONL strictly, so a torn last line (a crash while writing) is cut
    off first (:func:`pdbench.storage.jsonl.cut_torn_tails`) and reported in ``cut``. A link
    out of the run directory is refused before anything is read or cut
    (:func:`pdbench.storage.run_links.refuse_outside_links`).
    A request built before on the same project and a run of the same layout is replayed
    without dbt when it can be (:mod:`pdbench.storage.dbt_plan`): same statements, same
    marts; dbt builds it whenever the replay cannot vouch for that.
    Raises :class:`AggregationError` naming every failing model and test.
    """
    refuse_outside_links(request.run_dir)
    cut = tuple(cut_torn_tails(request.run_dir))
    plan = None if _game_model_folders else plan_file(request, dbt_project_key())
    if plan is not None:
        replayed = replay(request, plan)
        if replayed is not None:
            return replace(replayed, cut=cut)
        request = replace(request, record_plan=str(plan))
    try:
        return replace(_shared_process().invoke(request), cut=cut)
    except AggregationError as err:
        if not cut:
            raise
        # what was cut may be why dbt failed (a match short of its last round)
        raise AggregationError(f"{err}; {'; '.join(cut)}") from None


def add_game_models(game: str, folder: Path) -> None:
    """Let dbt build the models in ``folder`` too: those of ``game``, a game registered from
    outside pdbench (:func:`pdbench.games.register`). A worker started before is replaced at
    its next invocation."""
    _game_model_folders[game] = Path(folder).resolve()


def _game_models_dir() -> str | None:
    """One folder inside the dbt project holding every outside game's models, as links to
    their files, relative to the project: dbt reads one folder per ``model-paths`` entry, does
    not follow linked folders, and writes what it compiles to the model's path below its
    target folder (an absolute path would be written over). Named for the set of games, so
    dbt's saved parse of it stays valid."""
    if not _game_model_folders:
        return None
    key = json.dumps(sorted((g, str(f)) for g, f in _game_model_folders.items()))
    relative = f"{OUTSIDE_GAMES_DIR}/{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    farm = DBT_PROJECT_DIR / relative
    for game, folder in _game_model_folders.items():
        for source in sorted(folder.rglob("*")):
            if source.is_file():
                link = farm / game / source.relative_to(folder)
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.is_symlink():
                    link.symlink_to(source)
    return relative


def _shared_process() -> DbtProcess:
    global _shared
    with _shared_lock:
        stale = _shared is not None and _shared.game_models != _game_models_dir()
        if stale and _shared is not None:
            _shared.close()
        if _shared is None or stale or not _shared.is_alive:
            if _shared is None:
                atexit.register(_close_shared)
            _shared = DbtProcess()
        return _shared


def _close_shared() -> None:
    if _shared is not None:
        _shared.close()


def saved_parse_path(project_dir: Path = DBT_PROJECT_DIR) -> Path:
    """Where dbt's parse of the project is kept between processes (``$XDG_CACHE_HOME``),
    named ``<place>-<content>-partial_parse.msgpack``: the place is the project's folder and
    the folder of outside games' models (``$PDBENCH_GAME_MODELS``), the content a digest of
    their files. A parse is reused only by the very project it was made from: dbt's own check
    of a saved parse against a changed project misses some changes (a model's YAML entry
    moved into a file of its own was then read twice, and every build failed)."""
    outside = os.environ.get(GAME_MODELS_ENV, "")
    place = hashlib.sha256(f"{project_dir}\n{outside}".encode()).hexdigest()[:12]
    content = project_key(project_dir) + (project_key(Path(outside)) if outside else "")
    digest = hashlib.sha256(content.encode()).hexdigest()[:12]
    return dbt_cache_folder() / f"{place}-{digest}-{SAVED_PARSE_SUFFIX}"


def dbt_cache_folder() -> Path:
    """The user's cache folder of pdbench's dbt files (``$XDG_CACHE_HOME``): saved parses,
    the persistent worker's files."""
    cache_home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache_home / "pdbench" / "dbt"


SAVED_PARSE_SUFFIX = "partial_parse.msgpack"
"""The end of a saved parse's file name (:func:`saved_parse_path`)."""


def prune_saved_parses(saved: Path) -> None:
    """Remove the parses saved for the same place as ``saved`` but another content: that
    project changed since, and they can never be read again."""
    place = saved.name.split("-", 1)[0]
    for old in saved.parent.glob(f"{place}-*{SAVED_PARSE_SUFFIX}"):
        if old != saved:  # with the parses saved before they were named for their content
            old.unlink(missing_ok=True)


def worker_files() -> WorkerFiles:
    """The persistent dbt worker's files (:mod:`pdbench.storage.worker_socket`), in the
    folder of dbt's saved parse."""
    return WorkerFiles.in_folder(dbt_cache_folder(), DBT_PROJECT_DIR)
