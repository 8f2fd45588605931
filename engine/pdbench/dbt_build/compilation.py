"""The dbt project compiled once per version of it: what :mod:`pdbench.dbt_build.execute` runs.

``dbt compile`` (dbt's own command line, :mod:`pdbench.dbt_build.cli`) renders every model,
seed and data test of the project into SQL. The SQL names no run: a run's files are reached
through DuckDB macros defined when a build starts (``dbt_project/macros/run_dir.sql``), so one
compilation serves every run. Of the ``manifest.json`` it writes, pdbench reads documented
fields only (each node's unique_id, resource_type, name, tags, config, depends_on,
compiled_code, relation_name; each source's identifier and meta) and keeps them in a slim
``project.json`` (1.1 MB, read in 6 ms; the manifest's 3.9 MB in 28 ms), beside dbt's saved
parse (for a build by dbt itself); the rest of dbt's output is removed.

Compilations are kept in the user's cache folder (``compiled/``, this user's alone), one per
version of the project (:func:`compiled_dir`): a digest of the project's files, of the outside
games' models (:func:`pdbench.dbt_build.invoke.add_game_models`), and of the versions of dbt-core,
dbt-duckdb, dbt-adapters, dbt-common and DuckDB. A changed project is compiled again, and the
older compilations of the same checkout are removed; other checkouts' are left alone.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import hashlib
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from pdbench.dbt_build.cli import dbt_arguments, one_line, run_dbt_cli
from pdbench.dbt_build.private_folder import is_private_folder
from pdbench.dbt_build.request import GAME_MODELS_ENV, dbt_cache_folder
from pdbench.errors import AggregationError

__all__ = [
    "CompiledProject",
    "Node",
    "RecordFile",
    "compiled_dir",
    "compiled_project",
    "project_key",
    "saved_parse",
]

FORMAT = 2
"""The layout of ``project.json``; another layout is compiled anew."""
VERSIONED = ("dbt-core", "dbt-duckdb", "dbt-adapters", "dbt-common", "duckdb")
"""The packages whose versions key a compilation: dbt's materializations and test macros
live in dbt-core and dbt-adapters, the SQL is DuckDB's."""
PROJECT_FILE = "project.json"
PARTIAL_PARSE = "partial_parse.msgpack"
_SKIPPED_FOLDERS = {"target", "logs", "dbt_packages", "outside_games", ".user.yml"}


@dataclass(frozen=True)
class Node:
    """One model, seed or data test of the project, compiled."""

    unique_id: str
    resource_type: str
    """``model``, ``seed``, ``test`` or ``operation`` (an on-run-start hook)."""
    name: str
    tags: tuple[str, ...]
    materialized: str
    """``view``, ``table``, ``parquet_copy`` (a mart), ``seed``, ``test``."""
    depends_on: tuple[str, ...]
    compiled_code: str
    relation_name: str
    schema: str = "main"
    config: dict[str, Any] = field(default_factory=dict)
    """The config fields the execution reads: ``location``, ``row_group_size``, ``severity``,
    ``warn_if``, ``error_if``, ``fail_calc``, ``limit``, ``column_types``."""
    attached_model: str | None = None
    """A data test's model, by name (None: a singular test, or not a test)."""
    seed_file: str | None = None
    """A seed's CSV file."""


@dataclass(frozen=True)
class RecordFile:
    """A record file of a run the models read (a source of ``_sources.yml``)."""

    name: str
    """The file's name in the run directory: ``rounds.jsonl``."""
    required: bool
    """False: a run without it reads it as no rows (``meta.required: false``)."""


@dataclass(frozen=True)
class CompiledProject:
    """What the execution needs of the compiled project."""

    nodes: tuple[Node, ...]
    """The on-run-start hooks first, in their order; then the manifest's order."""
    record_files: tuple[RecordFile, ...]
    key: str = ""

    @functools.cached_property
    def by_id(self) -> dict[str, Node]:
        return {node.unique_id: node for node in self.nodes}


def project_key(project_dir: Path) -> str:
    """A digest of every file of the dbt project (dbt's output aside)."""
    digest = hashlib.sha256()
    files = [
        path
        for path in project_dir.rglob("*")
        if not _SKIPPED_FOLDERS & set(path.relative_to(project_dir).parts)
    ]
    for path in sorted(files):
        with contextlib.suppress(OSError):
            content = path.read_bytes()
            digest.update(f"{path.relative_to(project_dir)}\0{len(content)}\0".encode())
            digest.update(content)
    return digest.hexdigest()[:16]


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def compiled_dir(project_dir: Path, game_models: str | None) -> Path:
    """Where the compilation of this version of the project is kept (whether or not it is
    there yet): ``compiled/<place>-<content>``, the place a digest of the project's folder
    and of the outside games' folder, the content of their files and of the versions."""
    place = hashlib.sha256(f"{project_dir}\n{game_models or ''}".encode()).hexdigest()[:12]
    content = [FORMAT, project_key(project_dir), *(_version(name) for name in VERSIONED)]
    if game_models:
        content.append(project_key(project_dir / game_models))
    digest = hashlib.sha256(json.dumps(content).encode()).hexdigest()[:16]
    return dbt_cache_folder() / "compiled" / f"{place}-{digest}"


def compiled_project(project_dir: Path, game_models: str | None) -> CompiledProject:
    """The compiled project: read from the cache, or compiled now (and kept)."""
    where = compiled_dir(project_dir, game_models)
    found = _read(where / PROJECT_FILE)
    if found is not None:
        return found
    folder = where.parent
    if not is_private_folder(folder):
        raise AggregationError(
            f"{folder}: another user may write in this folder, and pdbench runs the SQL it keeps "
            "there: make it yours alone (chmod go-w) or set XDG_CACHE_HOME to a folder of yours"
        )
    building = Path(tempfile.mkdtemp(dir=folder, prefix=".compiling-"))
    # removed at exit too: pdbench may end while dbt compiles (Ctrl-C while playing)
    atexit.register(shutil.rmtree, building, True)
    try:
        project = _compile(project_dir, game_models, building / "target")
        project = CompiledProject(project.nodes, project.record_files, key=where.name)
        (building / PROJECT_FILE).write_text(json.dumps(asdict(project)), encoding="utf-8")
        # dbt's parse is kept for a build by dbt itself (saved_parse); the rest is read above
        for written in (building / "target").iterdir():
            if written.name != PARTIAL_PARSE:
                if written.is_dir():
                    shutil.rmtree(written, ignore_errors=True)
                else:
                    written.unlink(missing_ok=True)
        if where.exists() and _read(where / PROJECT_FILE) is None:
            shutil.rmtree(where, ignore_errors=True)  # damaged: replaced
        with contextlib.suppress(OSError):  # another process kept the same one first
            building.rename(where)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    _prune(where)
    return project


def _prune(kept: Path) -> None:
    """Remove the compilations of the same checkout but another version: they can never be
    read again."""
    place = kept.name.split("-", 1)[0]
    for old in kept.parent.glob(f"{place}-*"):
        if old != kept:
            shutil.rmtree(old, ignore_errors=True)


def _compile(project_dir: Path, game_models: str | None, target: Path) -> CompiledProject:
    # the hooks define nothing without a run (macros/run_dir.sql compiling_without_run)
    env = {"PDBENCH_RUN_DIR": None, GAME_MODELS_ENV: game_models}
    # dbt's unit tests are run by dbt itself (pdbench aggregate --unit-tests)
    arguments = [*dbt_arguments("compile", project_dir, target), "--exclude", "test_type:unit"]
    code, output = run_dbt_cli(arguments, env)
    manifest = target / "manifest.json"
    if code != 0 or not manifest.is_file():
        raise AggregationError(f"dbt compile failed on {project_dir}: {one_line(output)[:4000]}")
    return extract(json.loads(manifest.read_text(encoding="utf-8")))


_CONFIG_FIELDS = (
    "location",
    "row_group_size",
    "severity",
    "warn_if",
    "error_if",
    "fail_calc",
    "limit",
    "column_types",
)


def extract(manifest: dict[str, Any]) -> CompiledProject:
    """What :class:`CompiledProject` keeps of dbt's ``manifest.json``: its models, seeds and
    data tests, and the record files its sources name."""
    nodes = []
    entries = [*manifest.get("nodes", {}).values(), *manifest.get("seeds", {}).values()]
    for entry in entries:
        kind = entry["resource_type"]
        hook = kind == "operation" and "on-run-start" in entry["unique_id"]
        if kind not in ("model", "seed", "test") and not hook:
            continue
        config = entry.get("config") or {}
        attached = entry.get("attached_node")
        seed_file = None
        if kind == "seed":
            seed_file = str(Path(entry["root_path"]) / entry["original_file_path"])
        nodes.append(
            Node(
                unique_id=entry["unique_id"],
                resource_type=kind,
                name=entry["name"],
                tags=tuple(entry.get("tags") or ()),
                materialized=str(config.get("materialized") or kind),
                depends_on=tuple((entry.get("depends_on") or {}).get("nodes") or ()),
                compiled_code=entry.get("compiled_code") or "",
                relation_name=entry.get("relation_name") or "",
                schema=entry.get("schema") or "main",
                config={name: config[name] for name in _CONFIG_FIELDS if name in config},
                attached_model=attached.rsplit(".", 1)[-1] if attached else None,
                seed_file=seed_file,
            )
        )
    record_files = sorted(
        {
            RecordFile(source["identifier"], bool((source.get("meta") or {}).get("required", True)))
            for source in manifest.get("sources", {}).values()
        },
        key=lambda record: record.name,
    )
    # the on-run-start hooks in the order dbt runs them
    nodes.sort(key=_hook_order)
    return CompiledProject(tuple(nodes), tuple(record_files))


def _hook_order(node: Node) -> tuple[bool, int]:
    """The on-run-start hooks first (``operation.<project>.<project>-on-run-start-<n>``), by n."""
    if node.resource_type != "operation":
        return True, 0
    return False, int(node.unique_id.rsplit("-", 1)[-1])


def _read(path: Path) -> CompiledProject | None:
    """The compiled project kept at ``path``; None when there is none, it cannot be read, or
    others may write in its folder."""
    if not path.is_file() or not is_private_folder(path.parent.parent):
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        nodes = tuple(
            Node(
                **(entry | {"tags": tuple(entry["tags"]), "depends_on": tuple(entry["depends_on"])})
            )
            for entry in data["nodes"]
        )
        records = tuple(RecordFile(**entry) for entry in data["record_files"])
        return CompiledProject(nodes, records, key=str(data.get("key", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def saved_parse(project_dir: Path, game_models: str | None) -> Path | None:
    """dbt's parse of this version of the project, written when it was compiled: a build by
    dbt (``--unit-tests``) starts from a copy of it instead of parsing the project again."""
    where = compiled_dir(project_dir, game_models) / "target" / PARTIAL_PARSE
    with contextlib.suppress(OSError):
        if where.is_file() and is_private_folder(where.parent.parent.parent):
            return where
    return None
