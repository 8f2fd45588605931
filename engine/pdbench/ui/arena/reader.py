"""What the arena's pages read beyond whole marts: the rows of one question."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pdbench.arena.marts import ArenaMart
from pdbench.ui.run_reader import mart

__all__ = ["of_question"]


def of_question(run_dir: Path, name: ArenaMart, question_id: str) -> pd.DataFrame:
    """The rows of one question in the mart ``name`` (``rating_detail.parquet``,
    ``answer_detail.parquet``, ``judgment_detail.parquet``)."""
    return mart(run_dir, name, "question_id = ?", question_id)
