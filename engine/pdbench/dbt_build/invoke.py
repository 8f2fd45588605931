"""Run the repository's dbt project on one run directory.

The one place pdbench runs dbt's models: ``pdbench aggregate`` builds every model of a game
(:mod:`pdbench.aggregate`), and the arena's question filter runs the question models between
rating and answering.

dbt compiles the project once per version of it (:mod:`pdbench.dbt_build.compilation`, ``dbt
compile`` in a process of its own), and pdbench sends DuckDB the compiled nodes of each build
(:mod:`pdbench.dbt_build.execute`): the same statements as ``dbt build``, without dbt's own
seconds per build. ``pdbench run`` compiles ahead (:func:`prepare_dbt`), on another core
while the games are played, when the project changed since its last compilation. A build with
dbt's unit tests (``pdbench aggregate --unit-tests``, the test suite) is dbt's own ``dbt
build``, in a process of its own.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import tempfile
import threading
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

from pdbench.dbt_build.cli import dbt_arguments, one_line, run_dbt_cli
from pdbench.dbt_build.compilation import CompiledProject, compiled_project, saved_parse
from pdbench.dbt_build.execute import duckdb_threads, execute
from pdbench.dbt_build.request import (
    GAME_MODELS_ENV,
    DbtRequest,
    DbtResults,
    dbt_cache_folder,
)
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.jsonl import cut_torn_tails
from pdbench.storage.run_links import refuse_outside_links

__all__ = [
    "GAME_MODELS_ENV",
    "DbtRequest",
    "DbtResults",
    "add_game_models",
    "dbt_cache_folder",
    "invoke_dbt",
    "prepare_dbt",
]

OUTSIDE_GAMES_DIR = "outside_games"
"""Where, in the dbt project, the links to outside games' models are made (git-ignored)."""
_game_model_folders: dict[str, Path] = {}
"""Game name -> the folder of its dbt models, for games whose models live outside the
project (:func:`add_game_models`)."""
_FAILED_STATUSES = {"error", "fail", "runtime error"}
_ahead: dict[str | None, Future[CompiledProject]] = {}
"""The compilation :func:`prepare_dbt` started, per set of outside games' models."""
_ahead_lock = threading.Lock()


def prepare_dbt() -> None:
    """Compile the project now, in the background, if this version of it has not been (and
    load it if it has): the first build then finds it ready."""
    game_models = _game_models_dir()
    with _ahead_lock:
        if game_models in _ahead:
            return
        ahead: Future[CompiledProject] = Future()
        _ahead[game_models] = ahead
    threading.Thread(
        target=_compile_ahead, args=(game_models, ahead), name="pdbench-dbt-compile", daemon=True
    ).start()


def _compile_ahead(game_models: str | None, ahead: Future[CompiledProject]) -> None:
    try:
        ahead.set_result(compiled_project(DBT_PROJECT_DIR, game_models))
    except Exception as err:  # reported by the build that needs it
        ahead.set_exception(err)


def _project() -> CompiledProject:
    """The compiled project: the one :func:`prepare_dbt` made ready, once; else as it is now."""
    game_models = _game_models_dir()
    with _ahead_lock:
        ahead = _ahead.pop(game_models, None)
    if ahead is not None and ahead.exception() is None:
        return ahead.result()
    if not (DBT_PROJECT_DIR / "dbt_project.yml").is_file():
        raise AggregationError(f"dbt project not found at {DBT_PROJECT_DIR}")
    return compiled_project(DBT_PROJECT_DIR, game_models)


def invoke_dbt(request: DbtRequest) -> DbtResults:
    """Run ``dbt <command> --select <select>`` on the request's run directory.

    dbt's unit tests check the SQL on hand-made inputs, whatever the run: ``build`` runs them
    only with ``unit_tests=True`` (the test suite does), and its data tests always.
    DuckDB reads the run's JSONL strictly, so a torn last line (a crash while writing) is cut
    off first (:func:`pdbench.storage.jsonl.cut_torn_tails`) and reported in ``cut``. A link
    out of the run directory is refused before anything is read or cut
    (:func:`pdbench.storage.run_links.refuse_outside_links`).
    Raises :class:`AggregationError` naming every failing model and test.
    """
    refuse_outside_links(request.run_dir)
    cut = tuple(cut_torn_tails(request.run_dir))
    try:
        if request.unit_tests and request.command == "build":
            results = _dbt_build(request)
        else:
            results = execute(_project(), request)
    except AggregationError as err:
        if not cut:
            raise
        # what was cut may be why the build failed (a match short of its last round)
        raise AggregationError(f"{err}; {'; '.join(cut)}") from None
    return replace(results, cut=cut)


def _dbt_build(request: DbtRequest) -> DbtResults:
    """``dbt build`` of ``request`` by dbt itself, unit tests included."""
    run_dir = Path(request.run_dir).resolve()
    game_models = _game_models_dir()
    _project()  # compiled first: dbt starts from the parse kept with it
    work = Path(tempfile.mkdtemp(prefix="pdbench-dbt-"))
    try:
        target = work / "target"
        target.mkdir()
        parse = saved_parse(DBT_PROJECT_DIR, game_models)
        if parse is not None:
            with contextlib.suppress(OSError):  # pruned meanwhile: dbt parses the project
                shutil.copyfile(parse, target / parse.name)
        arguments = [*dbt_arguments("build", DBT_PROJECT_DIR, target), "--select", request.select]
        if request.exclude:
            arguments += ["--exclude", *request.exclude.split()]
        if request.threads is not None:
            arguments += ["--threads", str(request.threads)]
        threads = duckdb_threads(run_dir) if request.one_duckdb_thread_when_small else None
        reads_by = duckdb_path(run_dir)
        env = {
            "PDBENCH_RUN_DIR": reads_by,
            "PDBENCH_DUCKDB_TEMP_DIR": str(work / "duckdb"),
            "PDBENCH_DUCKDB_THREADS": None if threads is None else str(threads),
            GAME_MODELS_ENV: game_models,
        }
        code, output = run_dbt_cli(arguments, env)
        return _build_results(
            request, run_dir, target, code, output.replace(reads_by, str(run_dir))
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _build_results(
    request: DbtRequest, run_dir: Path, target: Path, code: int, output: str
) -> DbtResults:
    """What ``dbt build`` wrote and checked, from its ``run_results.json`` and
    ``manifest.json``."""
    try:
        results = json.loads((target / "run_results.json").read_text(encoding="utf-8"))
        nodes = json.loads((target / "manifest.json").read_text(encoding="utf-8"))["nodes"]
    except (OSError, ValueError, KeyError):
        raise AggregationError(
            f"dbt build could not run on {run_dir}: {one_line(output)[:4000]}"
        ) from None
    done = [(entry, _node(nodes, entry["unique_id"])) for entry in results["results"]]
    reads_by = duckdb_path(run_dir)
    failures = [
        f"{node.get('resource_type', 'node')} {node.get('name', entry['unique_id'])}: "
        f"{_first_line(str(entry.get('message') or '').replace(reads_by, str(run_dir)))}"
        for entry, node in done
        if str(entry["status"]).lower() in _FAILED_STATUSES
    ]
    if failures or code != 0:
        detail = "; ".join(failures) or one_line(output)[:4000]
        raise AggregationError(f"dbt build failed on {run_dir} ({request.select}): {detail}")
    passed = [
        node.get("resource_type")
        for entry, node in done
        if node.get("resource_type") in ("test", "unit_test") and entry["status"] == "pass"
    ]
    models = [node for entry, node in done if node.get("resource_type") == "model"]
    marts = {
        str(run_dir / str(node["config"]["location"])): tuple(node.get("tags") or ())
        for node in models
        if node["config"].get("materialized") == "parquet_copy"
    }
    return DbtResults(
        locations=list(marts),
        n_checks_passed=len(passed),
        n_unit_tests_passed=passed.count("unit_test"),
        models=tuple(node["name"] for node in models),
        location_tags=marts,
    )


def _node(nodes: dict[str, Any], unique_id: str) -> dict[str, Any]:
    """The manifest's node of ``unique_id``; its kind and name alone for a unit test (kept
    apart from the nodes)."""
    kind, name = unique_id.split(".")[0], unique_id.rsplit(".", 1)[-1]
    return nodes.get(unique_id) or {"resource_type": kind, "name": name}


def _first_line(message: str) -> str:
    """The line that says what went wrong: dbt's header ("Runtime Error in model x (path)")
    is skipped for the database's own first line, which names the file and line."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    details = [line for line in lines if not line.endswith(")") or "Error in " not in line]
    return (details or lines or ["failed"])[0]


def add_game_models(game: str, folder: Path) -> None:
    """Let dbt build the models in ``folder`` too: those of ``game``, a game registered from
    outside pdbench (:func:`pdbench.games.register`)."""
    _game_model_folders[game] = Path(folder).resolve()


def _game_models_dir() -> str | None:
    """One folder inside the dbt project holding every outside game's models, as links to
    their files, relative to the project: dbt reads one folder per ``model-paths`` entry, does
    not follow linked folders, and writes what it compiles to the model's path below its
    target folder (an absolute path would be written over). Named for the set of games."""
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
