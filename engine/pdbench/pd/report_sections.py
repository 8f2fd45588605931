"""The charts and tables a PD run adds to ``pdbench report`` (:mod:`pdbench.report`):
cooperation by condition with its 95% intervals, the paired differences in cooperation with
theirs, the condition table, and the standings of a round robin. Values of the marts only."""

from __future__ import annotations

from pathlib import Path

from pdbench.column_labels import format_cell, label
from pdbench.findings import bracket_text, read_rows
from pdbench.pd.compare import METRICS, difference_text
from pdbench.pd.marts import PDMart
from pdbench.report_svg import ForestRow, Section, forest_plot, mart_table_html, table_section

__all__ = ["SHOWN_COMPARISONS", "pd_sections"]

SHOWN_COMPARISONS = 40
"""The paired differences drawn (smallest BH p first); a bigger run points to the viewer."""
_COOPERATION = "cooperation_rate"


def _cooperation(run_dir: Path) -> Section:
    rows = read_rows(
        run_dir / PDMart.AGGREGATES,
        ("condition", "n_replicates", _COOPERATION, f"{_COOPERATION}_ci_low",
         f"{_COOPERATION}_ci_high", f"{_COOPERATION}_ci_note"),
        where="level = 'condition'",
        order_by="condition",
    )  # fmt: skip
    forest = [
        ForestRow(
            label=row["condition"],
            value=row[_COOPERATION],
            low=row[f"{_COOPERATION}_ci_low"],
            high=row[f"{_COOPERATION}_ci_high"],
            text=bracket_text(
                _COOPERATION,
                row[_COOPERATION],
                row[f"{_COOPERATION}_ci_low"],
                row[f"{_COOPERATION}_ci_high"],
            ),
            is_real=row[f"{_COOPERATION}_ci_low"] is not None,
        )
        for row in rows
    ]
    return Section(
        f"{label(_COOPERATION).capitalize()} by condition",
        "Mean over replicates with its 95% interval (Student's t over replicates, clipped to "
        "[0, 1] and widened to the binomial floor where narrower); grey: no interval.",
        forest_plot(
            forest,
            title=label(_COOPERATION),
            axis=f"{label(_COOPERATION)} (share of actions)",
            percent=True,
            bounds=(0.0, 1.0),
        ),
    )


def _comparisons(run_dir: Path) -> Section | None:
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        ("condition_1", "condition_2", "mean_difference", "ci_low", "ci_high", "p_value_bh",
         "verdict", "n_pairs"),
        where=f"metric = '{_COOPERATION}'",
        order_by="p_value_bh, condition_1, condition_2",
    )  # fmt: skip
    if not rows:
        return None
    name, unit = METRICS[_COOPERATION]
    forest = [
        ForestRow(
            label=f"{row['condition_1']} − {row['condition_2']}",
            value=row["mean_difference"],
            low=row["ci_low"],
            high=row["ci_high"],
            text=f"{difference_text(row['mean_difference'], row['ci_low'], row['ci_high'], unit)}"
            f", BH p {format_cell('p_value_bh', row['p_value_bh'])}",
            is_real=row["verdict"] in ("higher", "lower"),
        )
        for row in rows[:SHOWN_COMPARISONS]
    ]
    more = len(rows) - len(forest)
    return Section(
        f"Paired differences in {name}",
        "First condition minus second, replicate by replicate, with the 95% interval of the "
        "sign-flip test; blue: real after Benjamini-Hochberg (BH p ≤ 0.05), grey: "
        "inconclusive."
        + (f" The {more} pairs with the largest BH p are left out." if more else ""),
        forest_plot(
            forest,
            title=f"{name}: first minus second",
            axis=f"difference in {name} (percentage points)",
            percent=True,
            zero=True,
        ),
    )


_TABLE = ("condition", "agent_a_name", "agent_b_name", "n_replicates", "n_aborted",
          "cooperation_rate", "payoff_per_round_a", "payoff_per_round_b")  # fmt: skip


def _condition_table(run_dir: Path) -> Section:
    rows = read_rows(
        run_dir / PDMart.AGGREGATES, _TABLE, where="level = 'condition'", order_by="condition"
    )
    return Section(
        "Metrics by condition",
        "Means over replicates, each replicate weighing the same.",
        mart_table_html(_TABLE, rows),
    )


def _standings(run_dir: Path) -> Section | None:
    columns = ("overall_rank", "agent", "mean_score_per_round", "mean_score_per_round_ci_low",
               "mean_score_per_round_ci_high", "mean_score_per_round_ci_note", "n_wins",
               "median_rank", "cooperation_rate", "n_matches", "n_replicates")  # fmt: skip
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        columns,
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    return table_section(
        "Round-robin standings",
        "Mean score per round over an agent's matches except self-play, with its 95% "
        "interval (Student's t over the replicates' mean scores: each replicate replays the "
        "whole round robin); wins; median rank across replicates.",
        columns,
        rows,
    )


def pd_sections(run_dir: Path) -> list[Section]:
    """The PD's sections of the report, in order."""
    from pdbench.overview import manifest_of

    sections = [_cooperation(run_dir), _comparisons(run_dir), _condition_table(run_dir)]
    if (manifest_of(run_dir).get("config") or {}).get("round_robin") is not None:
        sections.append(_standings(run_dir))
    return [section for section in sections if section is not None]
