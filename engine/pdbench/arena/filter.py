"""The question filter between rating and answering: which questions are answered.

The decision is the scoring's, so it is made in SQL: :func:`kept_question_ids` runs the dbt
models tagged ``arena_questions`` (staging of questions, ratings and the manifest's
``scoring``, the normalised ratings, ``question_quality.parquet``) on the run directory and
reads the ``is_kept`` flag back. Nothing is answered, so nothing is paid for, that the scoring
would drop. ``question_filter.kind: none`` keeps every question without running dbt.

This step runs the models only (``dbt run``): their data tests run with the whole build in
``pdbench aggregate``, their unit tests with ``pdbench aggregate --unit-tests`` and the test
suite.
"""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.marts import ArenaMart
from pdbench.arena.records import ArenaFiles
from pdbench.arena.scoring_config import ArenaScoring
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.dbt_project import DBT_PROJECT_DIR
from pdbench.errors import AggregationError
from pdbench.storage.duckdb_paths import duckdb_path
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.manifest import read_manifest

__all__ = ["QUESTION_SELECTOR", "kept_question_ids"]

QUESTION_SELECTOR = "tag:arena_questions"
"""The dbt models that decide which questions are kept (they need no answers)."""


def kept_question_ids(run_dir: Path | str) -> list[str]:
    """The ids of the questions to answer, sorted, as the scoring models decide them."""
    run_dir = Path(run_dir).resolve()
    scoring = ArenaScoring.model_validate(read_manifest(run_dir).scoring)
    if scoring.question_filter.kind == "none":
        return sorted(r["question_id"] for r in read_jsonl(run_dir / ArenaFiles.QUESTIONS))
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select=QUESTION_SELECTOR))
    path = run_dir / ArenaMart.QUESTION_QUALITY
    if not path.is_file():
        raise AggregationError(
            f"{run_dir}: dbt wrote no {ArenaMart.QUESTION_QUALITY}: are the arena scoring models "
            f"({QUESTION_SELECTOR}) in {DBT_PROJECT_DIR}?"
        )
    import duckdb

    with duckdb.connect() as con:
        rows = con.execute(
            "select question_id from read_parquet($path) "
            "where is_kept and question_id is not null order by question_id",
            {"path": duckdb_path(path)},
        ).fetchall()
    return [question_id for (question_id,) in rows]
