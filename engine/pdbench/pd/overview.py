"""The overview of a Prisoner's Dilemma run (:mod:`pdbench.overview`), answer first: a round
robin opens on its standings (who wins, with its interval, and whether the lead holds in the
paired comparisons of players), an imported study on the model it studies, a persona study
on its conditions' differences; then the LLM
agents' invalid replies and fallback moves, who cooperates most and who scores most (a seat
of mostly fallback moves is not ranked), which differences between conditions hold after
Benjamini-Hochberg, and what is inconclusive and why. Every number is a value of
``aggregates.parquet``, ``comparisons.parquet``, ``tournament_standings.parquet`` or
``tournament_player_comparisons.parquet``."""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, label
from pdbench.findings import Finding, bracket_text, interval_text, read_rows, value_text
from pdbench.number_text import p_value_text, plural
from pdbench.pd.compare import ALPHA, METRICS, difference_text
from pdbench.pd.detectable import detectable_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.pd.overview_standings import standings
from pdbench.pd.report_strategies import STATED_COLUMNS
from pdbench.pd.validity import (
    MOSTLY_FALLBACK_SHARE,
    FallbackCount,
    fallback_counts,
    is_mostly_fallback,
)

__all__ = ["MOSTLY_FALLBACK_SHARE", "SHOWN_DIFFERENCES", "pd_findings"]

SHOWN_DIFFERENCES = 3
"""The real differences a sentence names (smallest BH p first); the rest are counted."""

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
                    "name": row[f"agent_{side}_name"],
                    "opponent": row[f"agent_{'b' if side == 'a' else 'a'}_name"],
                    "condition": row["condition"],
                    "side": side,
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
    return f"{entry['agent']} in {entry['condition']}, {shown}, {plural(entry['n'], 'replicate')}"


def _extremes(
    rows: list[dict[str, Any]],
    column: str,
    *,
    topic: str,
    what: str,
    page: str,
    left_out: set[tuple[str, str]],
) -> list[Finding]:
    """The seat with the highest ``column`` and the one with the lowest (the first of a tie,
    with how many share the value); the seats of ``left_out`` (``(condition, side)``, mostly
    fallback moves) are not ranked, and the sentence says how many were left out."""
    every = _agent_values(rows, column)
    values = [entry for entry in every if (entry["condition"], entry["side"]) not in left_out]
    skipped = len(every) - len(values)
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
    if skipped:
        text += (
            f" Not ranked: {skipped} seat{'' if skipped == 1 else 's'} whose moves were mostly "
            "fallbacks after invalid replies."
        )
    return [Finding(topic, text, page, focus=top["condition"])]


_CONDITION_COLUMNS = (
    "condition", "agent_a_name", "agent_b_name", "n_replicates", "n_aborted",
    *(f"{metric}_{side}{suffix}" for metric in ("cooperation_rate", "payoff_per_round")
      for side in _SIDES for suffix in ("", "_ci_low", "_ci_high", "_ci_note")),
    *(f"invalid_attempt_share_{side}" for side in _SIDES),
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
    name, _unit = METRICS.get(row["metric"], (label(row["metric"]), ""))
    difference = difference_text(
        row["mean_difference"], row["ci_low"], row["ci_high"], row["metric"]
    )
    p_bh = p_value_text(row["p_value_bh"])
    higher = "higher" if row["verdict"] == "higher" else "lower"
    return (
        f"{name} is {higher} in {row['condition_1']} than in {row['condition_2']} "
        f"({difference} 95% interval, first minus second; BH p {p_bh}; "
        f"{plural(row['n_pairs'], 'pair')})"
    )


def _inconclusive(run_dir: Path, conditions: list[dict[str, Any]]) -> list[Finding]:
    """What is inconclusive, and why: differences with BH p above the threshold (on few
    data, without an interval), conditions with too few replicates, aborted matches."""
    rows = read_rows(
        run_dir / PDMart.COMPARISONS,
        ("verdict", "is_few_data", "ci_low", "ci_note", "condition_1", "condition_2", "metric",
         "family", "n_pairs", "minimum_detectable_difference", "replicates_for_interval"),
        where="condition_1 is not null",
        order_by="condition_1, condition_2, metric",
    )  # fmt: skip
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
        parts += _detectable(open_rows)
    thin = [row["condition"] for row in conditions if (row["n_replicates"] or 0) < 2]
    if thin:
        verb = "has" if len(thin) == 1 else "have"
        parts.append(f"{plural(len(thin), 'condition')} {verb} fewer than 2 "
                     "replicates, so no interval: "
                     + ", ".join(thin))  # fmt: skip
    aborted = sum(int(row["n_aborted"] or 0) for row in conditions)
    if aborted:
        verb = "is" if aborted == 1 else "are"
        parts.append(
            f"{plural(aborted, 'aborted match', 'aborted matches')} {verb} left out of every metric"
        )
    if not parts:
        return []
    return [Finding("inconclusive", "; ".join(parts) + ".", "All conditions")]


def _detectable(open_rows: list[dict[str, Any]]) -> list[str]:
    """What the first inconclusive primary difference could have found
    (:func:`pdbench.pd.detectable.detectable_text`), and how many more there are."""
    primary = [row for row in open_rows if row["family"] == "primary"]
    for position, row in enumerate(primary):
        text = detectable_text(
            metric=row["metric"],
            n_pairs=int(row["n_pairs"] or 0),
            detectable=row["minimum_detectable_difference"],
            replicates_for_interval=row["replicates_for_interval"],
        )
        if text:
            more = len(primary) - position - 1
            rest = f" ({plural(more, 'more inconclusive primary difference')})" if more else ""
            return [
                f"{label(row['metric'], per_agent=True)}, {row['condition_1']} vs "
                f"{row['condition_2']} (primary): {text}{rest}"
            ]
    return []


def _is_round_robin(manifest: dict[str, Any]) -> bool:
    config = manifest.get("config")
    return isinstance(config, dict) and config.get("round_robin") is not None


def _has_personas(manifest: dict[str, Any]) -> bool:
    """Whether a condition's agent plays a persona: a persona study, read by its
    differences."""
    config = manifest.get("config")
    conditions = config.get("conditions") if isinstance(config, dict) else None
    return any(
        isinstance(agent, dict) and agent.get("persona")
        for condition in conditions or []
        if isinstance(condition, dict)
        for agent in (condition.get("agent_a"), condition.get("agent_b"))
    )


SHOWN_STUDIED = 4
"""The conditions of a studied model a sentence names; the rest are counted."""


def _studied_models(manifest: dict[str, Any]) -> list[str]:
    """The LLMs an imported study studies: its agents of kind ``llm``, in config order."""
    if manifest.get("source") != "imported":
        return []
    config = manifest.get("config")
    conditions = config.get("conditions") if isinstance(config, dict) else None
    names = [
        str(agent["name"])
        for condition in conditions or []
        if isinstance(condition, dict)
        for agent in (condition.get("agent_a"), condition.get("agent_b"))
        if isinstance(agent, dict) and agent.get("kind") == "llm" and agent.get("name")
    ]
    return list(dict.fromkeys(names))


def _studied(conditions: list[dict[str, Any]], models: list[str]) -> list[Finding]:
    """An imported study's answer: how the model it studies cooperates and scores in each
    condition, with the 95% intervals."""
    findings = []
    cooperation = _agent_values(conditions, "cooperation_rate")
    payoffs = {
        (entry["condition"], entry["side"]): entry
        for entry in _agent_values(conditions, "payoff_per_round")
    }
    for model in models:
        seats = [entry for entry in cooperation if entry["name"] == model]
        if not seats:
            continue
        parts = []
        for entry in seats[:SHOWN_STUDIED]:
            payoff = payoffs.get((entry["condition"], entry["side"]))
            shown = interval_text(
                entry["column"], entry["value"], entry["low"], entry["high"], note=entry["note"]
            )
            if payoff is not None:
                shown += " and scores " + interval_text(
                    payoff["column"], payoff["value"], payoff["low"], payoff["high"],
                    unit=_unit(payoff["column"]), note=payoff["note"],
                )  # fmt: skip
            parts.append(
                f"in {entry['condition']} (seat {entry['side'].upper()}, against "
                f"{entry['opponent']}, {plural(entry['n'], 'replicate')}) it cooperates {shown}"
            )
        more = len(seats) - SHOWN_STUDIED
        tail = f"; and {plural(more, 'more condition')}" if more > 0 else ""
        findings.append(
            Finding(
                "model",
                f"The model this imported study studies, {model}: " + "; ".join(parts)
                + tail + ".",
                "All conditions",
            )
        )  # fmt: skip
    return findings


SHOWN_SEATS = 5
"""The LLM seats with invalid replies a sentence names; the rest are counted."""


def _validity(
    conditions: list[dict[str, Any]], fallbacks: dict[tuple[str, str], FallbackCount]
) -> list[Finding]:
    """Each LLM seat's fallback moves and invalid attempts, beside the numbers they affect,
    the most fallbacks first (up to :data:`SHOWN_SEATS`): a seat whose moves are mostly
    fallbacks plays its fallback, not its behaviour."""
    invalid = {
        (row["condition"], side): row[f"invalid_attempt_share_{side}"]
        for row in conditions
        for side in _SIDES
    }
    parts = []
    seats = sorted(
        ((key, count) for key, count in fallbacks.items() if count.n_fallback or invalid.get(key)),
        key=lambda item: (-item[1].share, -(invalid.get(item[0]) or 0.0), item[0]),
    )
    for (condition, side), count in seats[:SHOWN_SEATS]:
        share = invalid.get((condition, side))
        attempts = "" if share is None else f", {share:.1%} of its attempts invalid"
        parts.append(
            f"{side.upper()} · {count.agent} in {condition}: {count.n_fallback} of "
            f"{plural(count.n_moves, 'move')} ({count.share:.1%}) were fallbacks after "
            "invalid replies"
            f"{attempts}"
            + (" (mostly fallbacks: not ranked as behaviour)" if _is_mostly_fallback(count)
               else "")
        )  # fmt: skip
    if not parts:
        return []
    more = len(seats) - SHOWN_SEATS
    tail = f"; and {plural(more, 'more seat')} with invalid replies" if more > 0 else ""
    return [
        Finding(
            "validity",
            "Invalid replies and fallback moves: " + "; ".join(parts) + tail + ".",
            "Condition",
            focus=seats[0][0][0],
        )
    ]


def _stated(run_dir: Path) -> list[Finding]:
    """Whether the agents asked for their strategy play as they state it: each one that
    does not, with the states where the interval excludes 0 (the first one's numbers); the
    others in one clause. None in a run where no agent was asked."""
    rows = read_rows(
        run_dir / PDMart.STATED_VS_PLAYED,
        STATED_COLUMNS,
        where="agent_name is not null",
        order_by="agent_name, condition, state",
    )
    if not rows:
        return []
    parts, consistent = [], []
    for (agent, condition), group in groupby(rows, key=itemgetter("agent_name", "condition")):
        caught = [row for row in group if row["is_inconsistent"]]
        if not caught:
            consistent.append(f"{agent} in {condition}")
            continue
        first = caught[0]
        states = ", ".join(row["state"] for row in caught)
        difference = bracket_text(
            "difference", first["difference"], first["ci_low"], first["ci_high"]
        )
        parts.append(
            f"{agent} in {condition} plays otherwise than it states in {states} (in "
            f"{first['state']}: stated {value_text('stated_p', first['stated_p'])} C, played "
            f"{value_text('played_p', first['played_p'])}; difference {difference})"
        )
    if consistent:
        parts.append("as stated, within the intervals: " + ", ".join(consistent))
    return [Finding("statements", "Stated against played: " + "; ".join(parts) + ".", "Strategies")]


def _is_mostly_fallback(count: FallbackCount) -> bool:
    return is_mostly_fallback(count.share)


def pd_findings(run_dir: Path, manifest: dict[str, Any]) -> list[Finding]:
    """The sentences of a PD run's overview, answer first: a round robin's standings, a
    persona study's differences, otherwise who cooperates and scores most; invalid replies
    and fallback moves beside them."""
    conditions = read_rows(
        run_dir / PDMart.AGGREGATES,
        _CONDITION_COLUMNS,
        where="level = 'condition'",
        order_by="condition",
    )
    if not conditions:
        return []
    fallbacks = fallback_counts(run_dir)
    mostly_fallback = {key for key, count in fallbacks.items() if _is_mostly_fallback(count)}
    extremes = [
        *_extremes(
            conditions, "cooperation_rate", topic="cooperation", what="cooperation",
            page="Condition", left_out=mostly_fallback,
        ),
        *_extremes(
            conditions, "payoff_per_round", topic="score", what="payoff", page="Condition",
            left_out=mostly_fallback,
        ),
    ]  # fmt: skip
    validity = _validity(conditions, fallbacks)
    differences = _differences(run_dir)
    studied = _studied_models(manifest)
    if _is_round_robin(manifest):
        findings = [*standings(run_dir), *validity, *extremes, *differences]
    elif studied:
        findings = [*_studied(conditions, studied), *validity, *extremes, *differences]
    elif _has_personas(manifest):
        findings = [*differences, *validity, *extremes]
    else:
        findings = [*validity, *extremes, *differences]
    findings += _stated(run_dir)
    findings += _inconclusive(run_dir, conditions)
    return findings
