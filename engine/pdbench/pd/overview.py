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

from itertools import pairwise
from pathlib import Path
from typing import Any

from pdbench.column_labels import MISSING, label
from pdbench.findings import Finding, interval_text, read_rows
from pdbench.pd.compare import ALPHA, METRICS, difference_text
from pdbench.pd.marts import PDMart
from pdbench.pd.metrics import pd_metrics
from pdbench.pd.validity import FallbackCount, fallback_counts

__all__ = ["MOSTLY_FALLBACK_SHARE", "SHOWN_DIFFERENCES", "SHOWN_STANDINGS", "pd_findings"]

SHOWN_DIFFERENCES = 3
"""The real differences a sentence names (smallest BH p first); the rest are counted."""
SHOWN_STANDINGS = 3
MOSTLY_FALLBACK_SHARE = 0.5
"""A seat with more than this share of its moves fallbacks is not ranked as behaviour."""

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
    return f"{entry['agent']} in {entry['condition']}, {shown}, {entry['n']} replicates"


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
    return [Finding(topic, text, page)]


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
    name, unit = METRICS.get(row["metric"], (label(row["metric"]), ""))
    difference = difference_text(row["mean_difference"], row["ci_low"], row["ci_high"], unit)
    p_bh = "< 0.001" if row["p_value_bh"] < 0.001 else f"{row['p_value_bh']:.3f}"
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


_STANDING_COLUMNS = (
    "overall_rank", "agent", "mean_score_per_round", "mean_score_per_round_ci_low",
    "mean_score_per_round_ci_high", "mean_score_per_round_ci_note", "n_replicates", "n_wins",
    "median_rank", "n_matches",
)  # fmt: skip
_PLAYER_COLUMNS = (
    "agent_1", "agent_2", "rank_1", "rank_2", "n_replicates", "mean_difference", "ci_low",
    "ci_high", "ci_note", "verdict", "is_adjacent",
)  # fmt: skip
_SCORE = "mean_score_per_round"
_POINTS = "points/round"


def _score_text(row: dict[str, Any]) -> str:
    return interval_text(
        _SCORE,
        row[_SCORE],
        row[f"{_SCORE}_ci_low"],
        row[f"{_SCORE}_ci_high"],
        unit=_POINTS,
        note=row[f"{_SCORE}_ci_note"],
    )


def _gap_text(pair: dict[str, Any]) -> str:
    """A paired difference of two players: ``+0.120 points/round (95% interval +0.050 to
    +0.190, 5 replicates)``; without an interval, why."""

    def signed(value: float) -> str:
        return f"{value:+.3f}"

    replicates = f"{pair['n_replicates']} replicate{'' if pair['n_replicates'] == 1 else 's'}"
    shown = f"{signed(pair['mean_difference'])} {_POINTS}"
    if pair["ci_low"] is None or pair["ci_high"] is None:
        return f"{shown} (no interval: {pair['ci_note'] or MISSING}; {replicates})"
    return (
        f"{shown} (95% interval {signed(pair['ci_low'])} to {signed(pair['ci_high'])}, "
        f"{replicates})"
    )


def _pair_of(pairs: list[dict[str, Any]], first: str, second: str) -> dict[str, Any] | None:
    return next(
        (pair for pair in pairs if {pair["agent_1"], pair["agent_2"]} == {first, second}), None
    )


def _standings(run_dir: Path) -> list[Finding]:
    """The round robin's answer: who wins, with its interval, and whether its lead holds
    against each other agent in the paired comparisons of players
    (``tournament_player_comparisons.parquet``); ties said as ties; then whether each of the
    next places beats the one after it."""
    rows = read_rows(
        run_dir / PDMart.TOURNAMENT_STANDINGS,
        _STANDING_COLUMNS,
        where="agent is not null",
        order_by="overall_rank, agent",
    )
    if not rows:
        return []
    pairs = read_rows(
        run_dir / PDMart.TOURNAMENT_PLAYER_COMPARISONS,
        _PLAYER_COLUMNS,
        where="agent_1 is not null",
        order_by="rank_1, agent_1, rank_2, agent_2",
    )
    first = rows[0]
    over = (
        f" over {first['n_matches']} matches in {first['n_replicates']} replicates"
        f" (round robin of {len(rows)} agents)"
    )
    tied = [row for row in rows if row["overall_rank"] == first["overall_rank"]]
    if len(tied) > 1:
        names = ", ".join(row["agent"] for row in tied[:-1]) + f" and {tied[-1]['agent']}"
        text = f"{names} tie for first place at {_score_text(first)} each{over}."
    elif len(rows) == 1:
        text = f"{first['agent']} is the only agent: {_score_text(first)}{over}."
    else:
        text = _winner_text(first, rows, pairs, over)
    text += _next_places(rows, pairs)
    return [Finding("standings", text, "Tournament")]


def _winner_text(
    first: dict[str, Any], rows: list[dict[str, Any]], pairs: list[dict[str, Any]], over: str
) -> str:
    """The first place's sentence: a winner only when its lead over every other agent holds
    (a paired difference whose interval excludes 0, or the same in every replicate)."""
    second = rows[1]
    runner_up = f"#{second['overall_rank']} {second['agent']}"
    lead = _pair_of(pairs, first["agent"], second["agent"])
    if not pairs or lead is None:
        return (
            f"{first['agent']} leads with {_score_text(first)}{over}; no paired comparison of "
            "players says whether the lead holds."
        )
    unseparated = [
        row["agent"]
        for row in rows[1:]
        if (pair := _pair_of(pairs, first["agent"], row["agent"])) is None
        or pair["verdict"] != "first ahead"
    ]
    if not unseparated:
        return (
            f"{first['agent']} wins with {_score_text(first)}{over}, ahead of every other agent "
            f"in paired comparisons over replicates; ahead of {runner_up} by "
            f"{_gap_text(lead)}."
        )
    shown = ", ".join(unseparated[:SHOWN_STANDINGS])
    more = len(unseparated) - SHOWN_STANDINGS
    if more > 0:
        shown += f" and {more} more"
    return (
        f"{first['agent']} leads with {_score_text(first)}{over}, but is not separated from "
        f"{shown} in paired comparisons over replicates (over {runner_up}: "
        f"{_gap_text(lead)}): no single winner at this run's size."
    )


def _next_places(rows: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> str:
    """Whether #2 beats #3, #3 beats #4 (the places after the first, up to
    :data:`SHOWN_STANDINGS`; each agent named with its rank, which ties share)."""
    parts = []
    for place, (upper, lower) in enumerate(pairwise(rows[1:]), start=2):
        if place > SHOWN_STANDINGS:
            break
        pair = _pair_of(pairs, upper["agent"], lower["agent"])
        if pair is None:
            continue
        first, second = (
            f"#{upper['overall_rank']} {upper['agent']}",
            f"#{lower['overall_rank']} {lower['agent']}",
        )
        names = f"{first} and {second}"
        gap = _gap_text(pair)
        verdict = pair["verdict"]
        if verdict == "tied":
            parts.append(f"{names} tie ({gap})")
        elif verdict == "first ahead":
            parts.append(f"{first} beats {second} by {gap}")
        elif verdict == "first behind":  # over the replicates both played, not all matches
            parts.append(f"{second} beats {first} in the replicates both played ({gap})")
        else:
            parts.append(f"{names} are not separated ({gap})")
    if not parts:
        return ""
    return " Next: " + "; ".join(parts) + "."


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
                f"{entry['opponent']}, {entry['n']} replicates) it cooperates {shown}"
            )
        more = len(seats) - SHOWN_STUDIED
        tail = f"; and {more} more condition(s)" if more > 0 else ""
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
            f"{count.n_moves} moves ({count.share:.1%}) were fallbacks after invalid replies"
            f"{attempts}"
            + (" (mostly fallbacks: not ranked as behaviour)" if _is_mostly_fallback(count)
               else "")
        )  # fmt: skip
    if not parts:
        return []
    more = len(seats) - SHOWN_SEATS
    tail = f"; and {more} more seat(s) with invalid replies" if more > 0 else ""
    return [
        Finding(
            "validity",
            "Invalid replies and fallback moves: " + "; ".join(parts) + tail + ".",
            "All conditions",
        )
    ]


def _is_mostly_fallback(count: FallbackCount) -> bool:
    return count.share > MOSTLY_FALLBACK_SHARE


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
            page="All conditions", left_out=mostly_fallback,
        ),
        *_extremes(
            conditions, "payoff_per_round", topic="score", what="payoff", page="All conditions",
            left_out=mostly_fallback,
        ),
    ]  # fmt: skip
    validity = _validity(conditions, fallbacks)
    differences = _differences(run_dir)
    studied = _studied_models(manifest)
    if _is_round_robin(manifest):
        findings = [*_standings(run_dir), *validity, *extremes, *differences]
    elif studied:
        findings = [*_studied(conditions, studied), *validity, *extremes, *differences]
    elif _has_personas(manifest):
        findings = [*differences, *validity, *extremes]
    else:
        findings = [*validity, *extremes, *differences]
    findings += _inconclusive(run_dir, conditions)
    return findings
