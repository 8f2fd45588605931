"""How the arena pages show a verdict beside its interval: the rule it follows in words, and a
visible warning for the rows whose verdict rests on few data (``is_few_data`` of the mart;
the thresholds are the dbt macros ``arena_few_data_n`` and ``arena_few_data_agreement_n``,
docs/arena_scoring.md, "Labels")."""

from __future__ import annotations

import pandas as pd
import streamlit as st
from streamlit.elements.lib.column_types import ColumnConfig

from pdbench.model_text import escaped

__all__ = ["FEW_DATA_N", "few_data_column", "few_data_warning"]

FEW_DATA_N = 5
"""The dbt default of ``arena_few_data_n``: fewer observations than this are few data."""


def few_data_column(what: str) -> ColumnConfig:
    """The ``is_few_data`` column, titled with what is counted."""
    return st.column_config.CheckboxColumn(
        "few data", help=f"fewer than {FEW_DATA_N} {what}: read the verdict with care"
    )


def few_data_warning(rows: pd.DataFrame, *, name: str, what: str) -> None:
    """A warning naming the rows flagged ``is_few_data``, if any."""
    if "is_few_data" not in rows.columns:
        return
    flagged = rows[rows["is_few_data"].fillna(True).astype(bool)][name].astype(str).tolist()
    if flagged:
        named = ", ".join(escaped(row_name) for row_name in flagged)
        st.warning(
            f"Few data: {named} (fewer than {FEW_DATA_N} {what}). Their "
            "intervals are wide and their verdicts may change with more data."
        )
