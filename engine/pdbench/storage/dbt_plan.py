"""A dbt build kept to be replayed: the statements dbt sent DuckDB for a request.

dbt's own cost is per node (about 115 ms of Python each: rendering the model, running its
materialization's macros, its events), whatever the SQL; on a small run that is most of
``pdbench aggregate``. dbt's Jinja reads nothing that differs from one run to the next but
the run directory, the spill folder, DuckDB's threads (all three substituted or keyed) and
what it asks DuckDB while it renders: whether a table came out empty, which columns it has,
which of the run's files exist, the failing rows of each data test. So the first build of a
request records every statement dbt sent and the rows of every answer dbt read
(:mod:`pdbench.storage.dbt_recorder`, in the dbt worker), and a later build of the same
request on the same project sends the same statements to DuckDB from pdbench's own process
(:mod:`pdbench.storage.dbt_replay`), checking every answer dbt read against the recorded
one. An answer that differs (a test that fails, a mart that came out empty, a file that is
absent) means dbt would have sent other statements: the replay stops and dbt builds the run,
as it does after any error, so that dbt names what failed. The models stay dbt's: a plan is
dbt's own output for one project, and a changed project, dbt, dbt-duckdb or DuckDB never
reads an older one.

Plans are kept in the user's cache folder (``plans/``, this user's alone), one per request,
run layout and project (:func:`plan_file`). ``PDBENCH_DBT_REPLAY=0`` turns replaying off (dbt
builds every run); so does ``PDBENCH_DBT_RUN_RESULTS`` (whose point is dbt's node timings).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pdbench.storage.marts_manifest import MARTS_MANIFEST

if TYPE_CHECKING:
    from pdbench.storage.dbt import DbtRequest

__all__ = [
    "ONE_THREAD_BYTES",
    "REPLAY_ENV",
    "RUN_DIR_MARK",
    "SPILL_MARK",
    "Plan",
    "duckdb_threads",
    "has_plans",
    "is_private_folder",
    "plan_file",
    "read_plan",
    "rows_text",
    "write_plan",
]

PLAN_FORMAT = 3
REPLAY_ENV = "PDBENCH_DBT_REPLAY"
"""Set to ``0``: never replay, dbt builds every run."""
RUN_DIR_MARK = "\x00run_dir\x00"
"""Stands for the run directory in a plan's statements."""
SPILL_MARK = "\x00spill_dir\x00"
"""Stands for DuckDB's spill folder in a plan's statements."""
ONE_THREAD_BYTES = 16 * 2**20
"""Raw files (the run's ``*.jsonl``) below this size are built with one DuckDB thread: on
the demo (0.5 MB) that took 0.5 to 1.4 CPU-seconds off a build of about 7, and more wall
time on a busy machine, where a second thread only waits for the first; a 210,000-round run
(about 130 MB) keeps one thread per core. Asked for by the PD only
(:attr:`pdbench.game.Marts.one_duckdb_thread_when_small`): its marts are the same either way,
whereas two arena marts whose order leaves ties come out in another row order."""
_ROW_COUNT = re.compile(r"\*/\s*select count\(\*\) as row_count from ", re.IGNORECASE)
"""The statement dbt-duckdb's ``external`` materialization counts a mart's rows with, after
dbt's comment (``macros/materializations/external.sql``): it writes a row of NULLs into an
empty mart, and another view over it."""
_HEAD = 1000
"""The length of a statement's beginning that holds dbt's comment and the count."""
_VERSIONED = ("dbt-core", "dbt-duckdb", "duckdb")


@dataclass(frozen=True)
class Plan:
    """What dbt sent DuckDB for one request, and what it answered pdbench."""

    config: dict[str, str]
    """The DuckDB connection's configuration (the profile's ``config_options``)."""
    statements: list[tuple[int, str, str | None]]
    """In the order dbt sent them: dbt's connection (a DuckDB cursor), the statement, and the
    rows dbt read from its answer, as :func:`rows_text` gives them (None: dbt read none)."""
    answer: dict[str, Any]
    """The worker's answer, its files named relative to the run directory."""
    upstream: dict[str, list[str]]
    """Each dbt node built (``model.pdbench.x``, ``test.pdbench.y``) -> the nodes it reads:
    nodes apart are replayed side by side (:mod:`pdbench.storage.dbt_replay`)."""


def duckdb_threads(run_dir: Path) -> int | None:
    """The DuckDB threads to build ``run_dir`` with: 1 when its raw files (``*.jsonl``, its
    chunks' too) hold fewer than :data:`ONE_THREAD_BYTES`; None (DuckDB's default) otherwise."""
    size = 0
    for path in run_dir.rglob("*.jsonl"):
        with contextlib.suppress(OSError):
            size += path.stat().st_size
        if size >= ONE_THREAD_BYTES:
            return None
    return 1


def rows_text(statement: str, rows: list[Any]) -> str:
    """What dbt made of the rows of an answer to ``statement``, as text, to compare a
    replayed answer with a recorded one: the rows themselves, but for dbt-duckdb's count of a
    mart's rows (its ``external`` materialization), of which dbt uses only whether it is 0."""
    if _ROW_COUNT.search(statement[:_HEAD]) and len(rows) == 1 and len(rows[0]) == 1:
        return json.dumps([["empty" if rows[0][0] == 0 else "rows"]])
    return json.dumps([list(row) for row in rows], default=str)


def plan_file(request: DbtRequest, project_key: str) -> Path | None:
    """Where the plan of ``request`` is kept (whether or not one is there yet); None when
    this request is never replayed: replaying is off, or the request runs unit tests."""
    run_dir = str(Path(request.run_dir).resolve())
    if (
        os.environ.get(REPLAY_ENV, "1") == "0"
        or os.environ.get("PDBENCH_DBT_RUN_RESULTS")
        or request.unit_tests
    ):
        return None
    key = {
        "format": PLAN_FORMAT,
        "request": asdict(request) | {"run_dir": None},
        "duckdb_threads": (
            duckdb_threads(Path(run_dir)) if request.one_duckdb_thread_when_small else None
        ),
        "layout": _layout(Path(run_dir)),
        "versions": [_version(name) for name in _VERSIONED],
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()
    return plans_folder() / f"{project_key}-{digest[:20]}.json"


def has_plans(project_key: str) -> bool:
    """Whether a plan of this version of the project is kept (and replaying is on)."""
    if os.environ.get(REPLAY_ENV, "1") == "0" or os.environ.get("PDBENCH_DBT_RUN_RESULTS"):
        return False
    return any(plans_folder().glob(f"{project_key}-*.json"))


def plans_folder() -> Path:
    from pdbench.storage.dbt import dbt_cache_folder

    return dbt_cache_folder() / "plans"


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def _layout(run_dir: Path) -> list[str]:
    """The names of the run's record files, and of those in its chunks' copies: dbt renders
    another statement where a file is absent or read from chunks. What the build itself
    writes (the marts' manifest) is left out."""
    names = sorted(
        path.name
        for path in run_dir.glob("*.json*")
        if path.is_file() and path.name != MARTS_MANIFEST
    )
    shards = sorted({path.name for path in run_dir.glob("shards/part-*/*")})
    return names + [f"shards/{name}" for name in shards]


def write_plan(path: Path, plan: Plan) -> None:
    """Keep ``plan`` at ``path`` (atomically: other processes may read it), and remove the
    plans of other versions of the project, which can never be read again."""
    folder = path.parent
    if not is_private_folder(folder):
        return
    text = json.dumps(asdict(plan))
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False, encoding="utf-8") as handle:
        handle.write(text)
    os.replace(handle.name, path)
    project = path.name.split("-", 1)[0]
    for old in folder.glob("*.json"):
        if not old.name.startswith(f"{project}-"):
            old.unlink(missing_ok=True)


def is_private_folder(folder: Path) -> bool:
    """Whether ``folder`` (made for this user alone if missing) is this user's and no one
    else may write in it: what is read from it (a plan, dbt's saved parse) runs as SQL."""
    from pdbench.storage.worker_socket import private_folder

    try:
        return private_folder(folder)
    except OSError:
        return False


def read_plan(path: Path) -> Plan | None:
    """The plan kept at ``path``; None when there is none, it cannot be read, or others may
    write in its folder."""
    if not path.is_file() or not is_private_folder(path.parent):
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Plan(
            config={str(k): str(v) for k, v in data["config"].items()},
            statements=[(int(c), str(s), r) for c, s, r in data["statements"]],
            answer=dict(data["answer"]),
            upstream={str(k): [str(n) for n in v] for k, v in data["upstream"].items()},
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
