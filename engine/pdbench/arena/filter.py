"""The question filter between rating and answering: which questions are answered.

The decision is the scoring's, so it is made in SQL: :func:`kept_question_ids` runs the dbt
models tagged ``arena_questions`` (staging of questions, ratings and the manifest's
``scoring``, the normalised ratings, ``question_quality.parquet``) on the run directory and
reads the ``is_kept`` flag back. Nothing is answered, so nothing is paid for, that the scoring
would drop. ``question_filter.kind: none`` keeps every question without running dbt.

This step runs the models only (``dbt run``): their data and unit tests run with the whole
build in ``pdbench aggregate``. dbt keeps its target folder in ``dbt_project/target``
(git-ignored), so its partial parse makes the step take a second or two after the first run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pdbench.errors import AggregationError
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.manifest import read_manifest
from pdbench.storage.schema import RunFiles

__all__ = ["DBT_PROJECT_DIR", "QUESTION_QUALITY", "QUESTION_SELECTOR", "kept_question_ids"]

DBT_PROJECT_DIR = Path(__file__).resolve().parents[3] / "dbt_project"
"""The repository's dbt project (its ``profiles.yml`` links to ``dbt_profiles.yml``)."""
QUESTION_SELECTOR = "tag:arena_questions"
"""The dbt models that decide which questions are kept (they need no answers)."""
QUESTION_QUALITY = "question_quality.parquet"
"""The mart they write: one row per question with ``question_id`` and ``is_kept``."""


def kept_question_ids(run_dir: Path | str) -> list[str]:
    """The ids of the questions to answer, sorted, as the scoring models decide them."""
    run_dir = Path(run_dir).resolve()
    scoring = read_manifest(run_dir).scoring
    kind = scoring.get("question_filter", {}).get("kind", "none")
    if kind == "none":
        return sorted(r["question_id"] for r in read_jsonl(run_dir / RunFiles.QUESTIONS))
    _build_question_models(run_dir)
    path = run_dir / QUESTION_QUALITY
    if not path.is_file():
        raise AggregationError(
            f"{run_dir}: dbt wrote no {QUESTION_QUALITY}: are the arena scoring models "
            f"({QUESTION_SELECTOR}) in {DBT_PROJECT_DIR}?"
        )
    import duckdb

    with duckdb.connect() as con:
        rows = con.execute(
            "select question_id from read_parquet($path) "
            "where is_kept and question_id is not null order by question_id",
            {"path": str(path)},
        ).fetchall()
    return [question_id for (question_id,) in rows]


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _build_question_models(run_dir: Path) -> None:
    from dbt.cli.main import dbtRunner

    args = [
        "run",
        "--project-dir", str(DBT_PROJECT_DIR),
        "--profiles-dir", str(DBT_PROJECT_DIR),
        "--select", QUESTION_SELECTOR,
        "--no-version-check",
        "--quiet",
    ]  # fmt: skip
    env = {"PDBENCH_RUN_DIR": str(run_dir), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    with _environment(env):
        outcome = dbtRunner().invoke(args)
    if outcome.exception is not None:
        raise AggregationError(f"dbt could not build the question models: {outcome.exception}")
    if not outcome.success:
        failed = [
            f"{r.node.name}: {str(r.message or '').strip().splitlines()[:1]}"
            for r in (getattr(outcome.result, "results", None) or [])
            if str(r.status).lower() in {"error", "fail", "runtime error"}
        ]
        raise AggregationError(
            f"dbt failed on the question models of {run_dir}: {'; '.join(failed) or 'see above'}"
        )
