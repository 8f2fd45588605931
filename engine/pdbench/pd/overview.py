"""The overview of a Prisoner's Dilemma run (:mod:`pdbench.overview`): who cooperates most,
who scores most, which differences between conditions hold after Benjamini-Hochberg, the
round robin's standings (only when the run is a round robin), and what is inconclusive and
why. Every number is a value of ``aggregates.parquet``, ``comparisons.parquet`` or
``tournament_standings.parquet``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, label
from pdbench.findings import Finding, interval_text, read_rows, value_text
from pdbench.number_text import p_value_text
from pdbench.pd.compare import ALPHA, METRICS, difference_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics

__all__ = ["SHOWN_DIFFERENCES", "SHOWN_STANDINGS", "pd_findings"]

SHOWN_DIFFERENCES = 3
"""The real differences a sentence names (smallest BH p first); the rest are counted."""
SHOWN_STANDINGS = 3

_SIDES = ("a", "b")


def _unit(column: str) -> str:
    metric = pd_metrics().metric_of(column)
    return "" if metric.format == "percent" else metric.unit


def _agent_values(rows: list[dict[str, Any]], column: str) -> list[dict[str, Any]]:
    """Each (condition, seat) of the condition rows with its ``column`` and interval."""
    values = []
    for row in rows:
        for side in _SIDES:
            value = row[f"{column}_{side}"]
            if value is None:
                continue
            values.append(
                {
                    "agent": f"{side.upper()} · {row[f'agent_{side}_name']}",
                    "condition": row["condition"],
                    "column": f"{column}_{side}",
                    "value": value,
                    "low": row[f"{column}_{side}_ci_low"],
                    "high": row[f"{column}_{side}_ci_high"],
                    "note": row[f"{column}_{side}_ci_note"],
                    "n": row["n_replicates"],
                }
            )
    return values


def _agent_text(entry: dict[str, Any]) -> str:
    shown = interval_text(
        entry["column"],
        entry["value"],
        entry["low"],
        entry["high"],
        unit=_unit(entry["column"]),
        note=entry["note"],
    )
    return f"{entry['agent']} in {entry['condition']}, {shown}, {entry['n']} replicates"


def _extremes(
    rows: list[dict[str, Any]], column: str, *, topic: str, what: str, page: str
) -> list[Finding]:
    """The seat with the highest ``column`` and the one with the lowest (the first of a tie,
    with how many share the value)."""
    values = _agent_values(rows, column)
    if not values:
        return []
    ordered = sorted(values, key=lambda entry: (-entry["value"], entry["condition"]))
    top, bottom = ordered[0], ordered[-1]
    ties = sum(1 for entry in values if entry["value"] == top["value"]) - 1
    share = "seat shares" if ties == 1 else "seats share"
    tie_text = f" ({ties} other {share} this value)" if ties else ""
    text = f"Highest {what}: {_agent_text(top)}{tie_text}."
    if len(values) > 1:
        text += f" Lowest: {_agent_text(bottom)}."
    return [Finding(topic, text, page)]


_CONDITION_COLUMNS = (
    "condition", "agent_a_name", "agent_b_name", "n_replicates", "n_aborted",
    *(f"{metric}_{side}{suffix}" for metric in ("cooperation_rate", "payoff_per_round")
      for side in _SIDES for suffix in ("", "_ci_low", "_ci_high", "_ci_note")),
)  # fmt: skip


def _differences(run_dir: Path) -> list[Finding]:
    """How many differences hold after BH, and the clearest few."""
    columns = ("condition_1", "condition_2", "metric", "mean_difference", "ci_low", "ci_high",
               "p_value_bh", "verdict", "is_few_data", "n_pairs", "ci_note")  # fmt: skip
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        columns,
        where="condition_1 is not null",
        order_by="p_value_bh, condition_1, condition_2, metric",
    )
    if not rows:
        return [
            Finding(
                "differences",
                "No pair of conditions is compared (comparisons.parquet has no row).",
                "All conditions",
            )
        ]
    real = [row for row in rows if row["verdict"] in ("higher", "lower")]
    pairs = len({(row["condition_1"], row["condition_2"]) for row in rows})
    head = (
        f"{len(real)} of {len(rows)} differences (metrics of {pairs} compared pairs of "
        f"conditions) hold after Benjamini-Hochberg (BH p ≤ {ALPHA})"
    )
    if not real:
        return [
            Finding("differences", f"{head}: none is real at this run's size.", "All conditions")
        ]
    named = "; ".join(_difference(row) for row in real[:SHOWN_DIFFERENCES])
    more = len(real) - SHOWN_DIFFERENCES
    tail = f"; and {more} more" if more > 0 else ""
    return [Finding("differences", f"{head}: {named}{tail}.", "All conditions")]


def _difference(row: dict[str, Any]) -> str:
    name, unit = METRICS.get(row["metric"], (label(row["metric"]), ""))
    difference = difference_text(row["mean_difference"], row["ci_low"], row["ci_high"], unit)
    p_bh = p_value_text(row["p_value_bh"])
    higher = "higher" if row["verdict"] == "higher" else "lower"
    return (
        f"{name} is {higher} in {row['condition_1']} than in {row['condition_2']} "
        f"({difference} 95% interval, first minus second; BH p {p_bh}; {row['n_pairs']} pairs)"
    )


def _inconclusive(run_dir: Path, conditions: list[dict[str, Any]]) -> list[Finding]:
    """What is inconclusive, and why: differences with BH p above the threshold (on few
    data, without an interval), conditions with too few replicates, aborted matches."""
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        ("verdict", "is_few_data", "ci_low", "ci_note"),
        where="condition_1 is not null",
        order_by="1",
    )
    parts = []
    open_rows = [row for row in rows if row["verdict"] not in ("higher", "lower")]
    if open_rows:
        few = sum(1 for row in open_rows if row["is_few_data"])
        no_interval = [row for row in open_rows if row["ci_low"] is None]
        reasons = [f"BH p > {ALPHA}"]
        if few:
            reasons.append(f"{few} rest on fewer than 10 paired replicates")
        if no_interval:
            notes = sorted({str(row["ci_note"]) for row in no_interval if row["ci_note"]})
            reasons.append(f"{len(no_interval)} have no interval ({'; '.join(notes) or MISSING})")
        parts.append(f"{len(open_rows)} of {len(rows)} differences are inconclusive: "
                     + ", ".join(reasons))  # fmt: skip
    thin = [row["condition"] for row in conditions if (row["n_replicates"] or 0) < 2]
    if thin:
        parts.append(f"{len(thin)} condition(s) have fewer than 2 replicates, so no interval: "
                     + ", ".join(thin))  # fmt: skip
    aborted = sum(int(row["n_aborted"] or 0) for row in conditions)
    if aborted:
        parts.append(f"{aborted} aborted match(es) are left out of every metric")
    if not parts:
        return []
    return [Finding("inconclusive", "; ".join(parts) + ".", "All conditions")]


def _is_round_robin(manifest: dict[str, Any]) -> bool:
    config = manifest.get("config")
    return isinstance(config, dict) and config.get("round_robin") is not None


def _standings(run_dir: Path) -> list[Finding]:
    """The round robin's first places, each mean score with its 95% interval over
    replicates."""
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        (
            "overall_rank",
            "agent",
            "mean_score_per_round",
            "mean_score_per_round_ci_low",
            "mean_score_per_round_ci_high",
            "mean_score_per_round_ci_note",
            "n_replicates",
            "n_wins",
            "median_rank",
            "n_matches",
        ),
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    if not rows:
        return []
    places = "; ".join(
        f"{row['overall_rank']}. {row['agent']}, "
        + interval_text(
            "mean_score_per_round",
            row["mean_score_per_round"],
            row["mean_score_per_round_ci_low"],
            row["mean_score_per_round_ci_high"],
            unit="points/round",
            note=row["mean_score_per_round_ci_note"],
        )
        + f" over {row['n_matches']} matches in {row['n_replicates']} replicates "
        f"({row['n_wins']} wins, median rank {value_text('median_rank', row['median_rank'])})"
        for row in rows[:SHOWN_STANDINGS]
    )
    return [
        Finding(
            "standings",
            f"Round robin of {len(rows)} agents: {places}. Each interval is Student's t over "
            "the replicates' mean scores; the paired comparisons say which gaps are real.",
            "Tournament",
        )
    ]


def pd_findings(run_dir: Path, manifest: dict[str, Any]) -> list[Finding]:
    """The sentences of a PD run's overview, answer first."""
    conditions = read_rows(
        run_dir / PDMart.AGGREGATES,
        _CONDITION_COLUMNS,
        where="level = 'condition'",
        order_by="condition",
    )
    if not conditions:
        return []
    findings = [
        *_extremes(
            conditions, "cooperation_rate", topic="cooperation", what="cooperation",
            page="All conditions",
        ),
        *_extremes(
            conditions, "payoff_per_round", topic="score", what="payoff", page="All conditions"
        ),
    ]  # fmt: skip
    if _is_round_robin(manifest):
        findings += _standings(run_dir)
    findings += _differences(run_dir)
    findings += _inconclusive(run_dir, conditions)
    return findings
