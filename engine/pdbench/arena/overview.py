"""The overview of a Humanity's Last Arena run, and of a series of them
(:mod:`pdbench.overview`): the top of the leaderboard with its intervals, the ranks that are
not settled and why, the Bradley-Terry ranking (a first place only when its rank interval
holds it) and how far it agrees, the unreadable judgements and invalid attempts per phase
(first when many judgements were unreadable), the flagged judges (only where the judge test
ran). Every number is a value of ``leaderboard.parquet``, ``bradley_terry.parquet``,
``score_agreement.parquet``, ``judge_stats.parquet``, ``calls_summary.parquet``,
``judge_player_bias.parquet`` or the series' marts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pdbench.arena.few_questions import few_questions_findings
from pdbench.arena.fragility_text import leaderboard_fragility, pairwise_fragility
from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.arena.pairwise_summary import ESTIMATE_NOTE_COLUMNS, elo_text, estimate_notes
from pdbench.column_labels import MISSING
from pdbench.findings import Finding, interval_text, read_rows, value_text
from pdbench.number_text import plural
from pdbench.tables import mart_rows

__all__ = ["SHOWN_PLAYERS", "UNREADABLE_FIRST_SHARE", "arena_findings", "series_findings"]

SHOWN_PLAYERS = 3
"""The places of the leaderboard a sentence names."""
UNREADABLE_FIRST_SHARE = 0.10
"""Above this share of unreadable judgements, the overview says so before the ranks."""
_POINTS = "points"


def _rank_range(row: dict[str, Any]) -> str:
    low, high = row["rank_ci_low"], row["rank_ci_high"]
    if low is None or high is None:
        return "rank interval —"
    return f"rank {low} at 95%" if low == high else f"rank {low} to {high} at 95%"


def _unsettled_rank(row: dict[str, Any]) -> bool:
    return row["rank_ci_low"] is not None and row["rank_ci_low"] != row["rank_ci_high"]


def _excludes_zero(low: float | None, high: float | None) -> bool:
    return low is not None and high is not None and (low > 0 or high < 0)


def _with_interval(row: dict[str, Any], column: str, prefix: str, unit: str) -> str:
    """``row[column]`` with ``row[prefix + "ci_low"]`` and ``..._high``, in ``unit``."""
    low, high = row[f"{prefix}ci_low"], row[f"{prefix}ci_high"]
    return interval_text(column, row[column], low, high, unit=unit)


def _leaderboard(run_dir: Path) -> list[Finding]:
    rows = read_rows(
        run_dir / ArenaMart.LEADERBOARD,
        ("rank", "player", "role", "score", "ci_low", "ci_high", "rank_ci_low", "rank_ci_high",
         "has_enough_data", "n_judgments", "min_judgments", "n_to_flip_next"),
        where="player is not null",
        order_by="rank asc nulls last, player",
    )  # fmt: skip
    ranked = [row for row in rows if row["has_enough_data"]]
    if not ranked:
        return []
    places = "; ".join(
        f"{row['rank']}. {row['player']}, "
        f"{interval_text('score', row['score'], row['ci_low'], row['ci_high'], unit=_POINTS)}, "
        f"{_rank_range(row)}, {row['n_judgments']} valid judgements"
        for row in ranked[:SHOWN_PLAYERS]
    )
    findings = [
        Finding(
            "leaderboard",
            f"Leaderboard of {len(ranked)} ranked players (mean normalised score of their "
            f"answers, 0 to 10): {places}.{_leader_fragility(ranked)}",
            "Leaderboard",
        )
    ]
    return findings + _unsettled(ranked, rows)


def _leader_fragility(ranked: list[dict[str, Any]]) -> str:
    """`` The leader's place rests on 26 valid judgements: ...``; empty for a lone player."""
    if len(ranked) < 2:
        return ""
    leader, runner_up = ranked[0], ranked[1]
    return " " + leaderboard_fragility(
        leader["player"], runner_up["player"], leader["n_to_flip_next"]
    )


def _unsettled(ranked: list[dict[str, Any]], rows: list[dict[str, Any]]) -> list[Finding]:
    """Ranks whose 95% interval spans more than one place, and players without a rank."""
    parts = []
    open_ranks = [r for r in ranked if _unsettled_rank(r)]
    if open_ranks:
        parts.append(
            "not settled at 95%: "
            + ", ".join(f"{r['player']} ({_rank_range(r)})" for r in open_ranks)
            + " (their score intervals overlap a neighbour's)"
        )
    short = [r for r in rows if not r["has_enough_data"] and r["role"] != "judge"]
    if short:
        parts.append(
            "not ranked, too few valid judgements: "
            + ", ".join(
                f"{r['player']} ({r['n_judgments']} of {r['min_judgments']})" for r in short
            )
        )
    if not parts:
        return [Finding("inconclusive", "Every rank is settled at 95%.", "Leaderboard")]
    return [Finding("inconclusive", "Ranks " + "; ".join(parts) + ".", "Leaderboard")]


def _elo_text(row: dict[str, Any]) -> str:
    """``1150 Elo (95% interval 1100 to 1200)``, in the catalogue's whole Elo points."""
    if row["elo"] is None:
        return f"{MISSING} Elo"
    if row["elo_ci_low"] is None or row["elo_ci_high"] is None:
        return f"{elo_text(row['elo'])} Elo (no interval)"
    low, high = elo_text(row["elo_ci_low"]), elo_text(row["elo_ci_high"])
    return f"{elo_text(row['elo'])} Elo (95% interval {low} to {high})"


def _bradley_terry_top(
    top: dict[str, Any], estimated: list[dict[str, Any]], *, others: bool
) -> str:
    """The highest Bradley-Terry strength (of the players with an estimate), called first only
    when its rank interval holds its place alone."""
    who = f"Of the others, {top['player']}" if others else top["player"]
    if top["rank_ci_low"] is not None and top["rank_ci_low"] == top["rank_ci_high"] == top["rank"]:
        return f"{who} comes first ({_rank_range(top)}): {_elo_text(top)}."
    widths = [
        row["rank_ci_high"] - row["rank_ci_low"] + 1
        for row in estimated
        if row["rank_ci_low"] is not None and row["rank_ci_high"] is not None
    ]
    spans = ""
    if len(widths) > 1:
        low, high = min(widths), max(widths)
        spans = (
            f"; every player's rank interval spans {plural(low, 'place')}"
            if low == high
            else f"; the players' rank intervals span {low} to {high} places"
        )
    return (
        f"{who} has the highest strength, {_elo_text(top)}, but {_rank_range(top)}: first place "
        f"is not settled{spans}."
    )


def _pairwise_fragility(top: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    """How few verdicts hold ``top`` above the next player down (``n_to_flip_next``)."""
    below = rows[rows.index(top) + 1 : rows.index(top) + 2]
    if not below:
        return ""
    return pairwise_fragility(
        top["player"],
        below[0]["player"],
        top["n_to_flip_next"],
        is_exact=top["is_flip_count_exact"],
    )


def _bradley_terry(run_dir: Path) -> list[Finding]:
    rows = read_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        ("rank", "elo", "rank_ci_low", "rank_ci_high", "n_to_flip_next", "is_flip_count_exact",
         *ESTIMATE_NOTE_COLUMNS),
        where="player is not null",
        order_by="rank, player",
    )  # fmt: skip
    if not rows:
        return []
    separated, convergence = estimate_notes(rows)
    estimated = [row for row in rows if not row["is_separated"]]
    parts = ["Pairwise verdicts (Bradley-Terry):", *separated]
    if estimated:
        parts.append(_bradley_terry_top(estimated[0], estimated, others=bool(separated)))
        parts.append(_pairwise_fragility(estimated[0], rows))
    text = " ".join([*parts, *convergence])
    agreement = read_rows(
        run_dir / ArenaMart.SCORE_AGREEMENT,
        ("n_players", "spearman", "kendall_tau"),
        where="n_players > 0",
        order_by="n_players",
    )
    if agreement:
        row = agreement[0]
        text += (
            f" Its ranking agrees with the scores' over {plural(row['n_players'], 'player')}: "
            "Spearman "
            f"{value_text('spearman', row['spearman'])}, Kendall's tau "
            f"{value_text('kendall_tau', row['kendall_tau'])} (no interval)."
        )
    return [Finding("agreement", text, "Pairwise")]


def _judges(run_dir: Path) -> list[Finding]:
    tested = read_rows(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        ("judge", "player", "flag_kind", "relative_deviation", "q_value", "n_answers",
         "is_flagged"),
        where="judge is not null",
        order_by="anomaly_rank, judge, player",
    )  # fmt: skip
    if not tested:  # no judge test ran (pairwise verdicts only, an import of verdicts)
        return []
    rows = [row for row in tested if row["is_flagged"]]
    if not rows:
        return [
            Finding(
                "judges",
                "No judge is flagged: no judge x player bias passes the permutation test "
                "after Benjamini-Hochberg.",
                "Judges",
            )
        ]
    named = "; ".join(
        f"{row['judge']} on {row['player']} ({row['flag_kind']}, "
        f"{value_text('relative_deviation', row['relative_deviation'], _POINTS)} from the other "
        f"judges on {plural(row['n_answers'], 'answer')}, "
        f"q {value_text('q_value', row['q_value'])})"
        for row in rows
    )
    pairs = plural(len(rows), "flagged judge x player pair")
    return [Finding("judges", f"{pairs}: {named}.", "Judges")]


_PHASES = ("generate", "rate", "answer", "judge")


def _validity(run_dir: Path) -> tuple[list[Finding], bool]:
    """The unreadable judgements (``judge_stats.parquet``), per judge, and the invalid
    attempts of every phase (``calls_summary.parquet``); and whether the unreadable share of
    judgements is above :data:`UNREADABLE_FIRST_SHARE`, so that it comes before the ranks."""
    judges = read_rows(
        run_dir / ArenaMart.JUDGE_STATS,
        ("judge", "n_judgments", "n_invalid", "invalid_rate"),
        where="judge is not null",
        order_by="invalid_rate desc nulls last, judge",
    )
    calls_path = run_dir / ArenaMart.CALLS_SUMMARY
    calls = [
        {"phase": phase, "n_calls": n_calls, "invalid_share": invalid_share}
        for phase, n_calls, invalid_share in (
            mart_rows(
                calls_path,
                columns=(
                    "phase",
                    "sum(n_calls)",
                    "sum(n_calls * invalid_attempt_share) / nullif(sum(n_calls), 0)",
                ),
                where="phase is not null and n_calls > 0 group by phase",
                order_by="phase",
            )
            if calls_path.is_file()
            else []
        )
    ]
    n_judgments = sum(int(row["n_judgments"] or 0) for row in judges)
    n_invalid = sum(int(row["n_invalid"] or 0) for row in judges)
    phases = sorted(
        (row for row in calls if row["invalid_share"]),
        key=lambda row: (_PHASES.index(row["phase"]) if row["phase"] in _PHASES else 9,
                         row["phase"]),
    )  # fmt: skip
    if not n_invalid and not phases:
        return [], False
    parts = []
    share = n_invalid / n_judgments if n_judgments else 0.0
    if n_invalid:
        worst = [row for row in judges if row["n_invalid"]][:SHOWN_PLAYERS]
        by_judge = ", ".join(
            f"{row['judge']} {row['n_invalid']} of {row['n_judgments']}" for row in worst
        )
        parts.append(
            f"{n_invalid} of {plural(n_judgments, 'judgement')} ({share:.1%}) could not be "
            "read, so the "
            f"scores rest on the other {n_judgments - n_invalid} (by judge, most first: {by_judge})"
        )
    if phases:
        parts.append(
            "invalid attempts by phase: "
            + ", ".join(
                f"{row['phase']} {row['invalid_share']:.1%} of {int(row['n_calls'])} attempts"
                for row in phases
            )
        )
    text = "Unreadable replies: " + "; ".join(parts) + "."
    return [Finding("validity", text, "Judges")], share > UNREADABLE_FIRST_SHARE


def arena_findings(run_dir: Path, manifest: dict[str, Any]) -> list[Finding]:
    """The sentences of an arena run's overview, answer first: the leaderboard with its rank
    intervals, or, when many judgements were unreadable, that share before it."""
    del manifest
    validity, first = _validity(run_dir)
    ranks = [*_leaderboard(run_dir), *_bradley_terry(run_dir), *few_questions_findings(run_dir)]
    if first:
        return [*validity, *ranks, *_judges(run_dir)]
    return [*ranks, *validity, *_judges(run_dir)]


def series_findings(series_dir: Path) -> list[Finding]:
    """The sentences of a series' overview: the combined ranking's top, the trends that are
    real (their interval excludes 0), the ranks not settled."""
    rows = read_rows(
        series_dir / SeriesMart.PLAYERS,
        ("overall_rank", "player", "n_tournaments", "mean_score", "ci_low", "ci_high",
         "rank_ci_low", "rank_ci_high", "trend", "trend_ci_low", "trend_ci_high"),
        where="player is not null",
        order_by="overall_rank, player",
    )  # fmt: skip
    if not rows:
        return []
    places = "; ".join(
        f"{row['overall_rank']}. {row['player']}, "
        f"{_with_interval(row, 'mean_score', '', _POINTS)} over {row['n_tournaments']} "
        f"tournaments, {_rank_range(row)}"
        for row in rows[:SHOWN_PLAYERS]
    )
    findings = [
        Finding(
            "leaderboard", f"Combined ranking of {plural(len(rows), 'player')}: {places}.", "Series"
        )
    ]
    trends = [r for r in rows if _excludes_zero(r["trend_ci_low"], r["trend_ci_high"])]
    if trends:
        named = "; ".join(
            f"{r['player']} {_with_interval(r, 'trend', 'trend_', 'points per tournament')}"
            for r in trends
        )
        findings.append(Finding("trend", f"Real trends: {named}.", "Series"))
    else:
        findings.append(
            Finding(
                "trend",
                "No player's trend excludes 0 at 95% (or fewer than 3 tournaments).",
                "Series",
            )
        )
    open_ranks = [r for r in rows if _unsettled_rank(r)]
    if open_ranks:
        findings.append(
            Finding(
                "inconclusive",
                "Ranks not settled at 95%: "
                + ", ".join(f"{r['player']} ({_rank_range(r)})" for r in open_ranks)
                + ".",
                "Series",
            )
        )
    return findings
