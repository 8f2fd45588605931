"""The Bradley-Terry lines of the leaderboard ``pdbench aggregate`` prints: the ranking from
pairwise verdicts, and how far it agrees with the absolute scores when the run has both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pdbench.arena.fragility_text import tie_model_text
from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import number_spec
from pdbench.tables import aligned, built_mart_rows, mart_rows

__all__ = [
    "ESTIMATE_NOTE_COLUMNS",
    "bradley_terry_lines",
    "elo_bound_text",
    "elo_text",
    "estimate_notes",
]


ESTIMATE_NOTE_COLUMNS = (
    "player",
    "is_separated",
    "elo_note",
    "is_converged",
    "bt_last_change",
    "elo_ci_low",
    "elo_ci_high",
)
"""The columns of ``bradley_terry.parquet`` that :func:`estimate_notes` reads."""


def elo_text(elo: float) -> str:
    """Elo points as the label catalogue writes them (whole points)."""
    return format(elo, number_spec("elo"))


def elo_bound_text(low: float | None, high: float | None) -> str | None:
    """The one-sided interval of a separated player in words (``Elo above 1488``), or None
    when it has neither end (or both: then it is an interval, not a bound)."""
    if low is not None and high is None:
        return f"Elo above {elo_text(low)}"
    if high is not None and low is None:
        return f"Elo below {elo_text(high)}"
    return None


def _separated_note(row: Mapping[str, Any]) -> str:
    bound = elo_bound_text(row.get("elo_ci_low"), row.get("elo_ci_high"))
    if bound is None:
        return f"{row['player']} {row['elo_note']} (no Elo)."
    return f"{row['player']} {row['elo_note']} (no Elo; {bound}, a one-sided 97.5% bound)."


def estimate_notes(rows: Sequence[Mapping[str, Any]]) -> tuple[list[str], list[str]]:
    """Why some Elo values of ``bradley_terry.parquet`` are not estimates, from its rows
    (:data:`ESTIMATE_NOTE_COLUMNS`): a sentence per separated player (``ann won every
    verdict: strength has no finite estimate (no Elo; Elo above 1488, a one-sided 97.5%
    bound).``), and one for a fit that had not converged while some player is separated
    (none when it had, or when every player is without an estimate)."""
    separated = [_separated_note(row) for row in rows if row["is_separated"]]
    if all(row["is_converged"] for row in rows) or all(row["is_separated"] for row in rows):
        return separated, []
    last_change = max(row["bt_last_change"] for row in rows)
    return separated, [
        f"The fit was still moving at its last step (largest change of ln strength "
        f"{last_change:.2g}): the Elo values are where it stopped, not estimates."
    ]


def bradley_terry_lines(run_dir: Path, tables: dict[str, int]) -> list[str]:
    """The players by Bradley-Terry strength (Elo-style, 95% intervals), beside their
    absolute score when the run has one, then the two rankings' agreement. A player without
    a finite strength (it won or lost every verdict) shows no Elo, and a sentence says why."""
    if not tables.get(ArenaMart.BRADLEY_TERRY):
        return []
    rows = mart_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        columns=(
            "rank",
            "player",
            "elo",
            "elo_ci_low",
            "elo_ci_high",
            "rank_ci_low",
            "rank_ci_high",
            "win_rate_vs_baseline",
            "n_verdicts",
            "baseline",
            "n_replicates",
            *ESTIMATE_NOTE_COLUMNS[1:],
            "tie_model",
            "tie_parameter",
            "tie_parameter_ci_low",
            "tie_parameter_ci_high",
        ),
        where="player is not null",
        order_by="rank asc, player asc",
    )
    scores = _absolute_scores(run_dir, tables)
    styled, style_lines = _style_control(run_dir, tables)
    header = ["rank", "player", "Elo", "95% CI", "rank interval"]
    header += ["style-controlled Elo", "95% CI"] if styled else []
    header += ["win rate vs baseline", "verdicts"] + (["absolute score"] if scores else [])
    table = [tuple(header)]
    for rank, player, elo, low, high, rank_low, rank_high, win_rate, n_verdicts, *_ in rows:
        line = [
            str(rank),
            str(player),
            "-" if elo is None else elo_text(elo),
            _interval_cell(low, high),
            "-" if rank_low is None else f"{rank_low}-{rank_high}",
            *(styled.get(player, ["-", "-"]) if styled else []),
            "-" if win_rate is None else f"{100 * win_rate:.1f}%",
            str(n_verdicts),
        ]
        if scores:
            line.append(scores.get(player, "-"))
        table.append(tuple(line))
    separated, convergence = estimate_notes(
        [dict(zip(ESTIMATE_NOTE_COLUMNS, (row[1], *row[11:-4]), strict=True)) for row in rows]
    )
    baseline = rows[0][9] if rows else None
    anchor = f"{baseline} = 1000" if baseline else "geometric mean of the strengths = 1000"
    return [
        *([""] if scores else []),
        f"Bradley-Terry ranking from pairwise verdicts (Elo points, {anchor}; 95% intervals "
        f"from {rows[0][10] if rows else 0} bootstrap replicates over questions; "
        f"{tie_model_text(*rows[0][-4:]) if rows else 'no verdict'}):",
        *aligned(table),
        *separated,
        *convergence,
        *_agreement_line(run_dir, tables),
        *style_lines,
    ]


def _style_control(run_dir: Path, tables: dict[str, int]) -> tuple[dict[str, list[str]], list[str]]:
    """Each player's style-controlled Elo and its interval as cells, and a line with the
    style coefficients (pairwise_style.parquet); nothing when no style feature was fitted."""
    features = built_mart_rows(
        run_dir,
        tables,
        ArenaMart.PAIRWISE_STYLE,
        columns=(
            "feature_label", "feature_unit", "coefficient", "ci_low", "ci_high", "is_converged"
        ),
        where="feature is not null",
        order_by="coefficient is null, feature",
    )  # fmt: skip
    fitted = [row[:5] for row in features if row[2] is not None]
    moving = any(row[5] is False for row in features if row[2] is not None)
    if not fitted:
        return {}, []
    ratings = mart_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        columns=(
            "player",
            "elo_style_controlled",
            "elo_style_controlled_ci_low",
            "elo_style_controlled_ci_high",
        ),
        where="player is not null",
        order_by="player",
    )
    cells = {
        player: ["-" if elo is None else f"{elo:.0f}", _interval_cell(low, high)]
        for player, elo, low, high in ratings
    }
    spec, signed = number_spec("coefficient"), number_spec("coefficient", signed=True)
    effects = "; ".join(
        f"{label} {value:{signed}} {unit}"
        + (f" (95% CI {low:{spec}} .. {high:{spec}})" if low is not None else "")
        for label, unit, value, low, high in fitted
    )
    missing = [row[0] for row in features if row[2] is None]
    return cells, [
        "Style control (the Elo with the answers' style held; pairwise_style.parquet): "
        f"log-odds of preferring an answer, {effects}"
        + (f"; not fitted: {', '.join(missing)}" if missing else "")
        + "."
        + (
            " Not converged: the fit was still moving at its last step, so these and the "
            "style-controlled Elo are where it stopped, not estimates."
            if moving
            else ""
        )
    ]


def _interval_cell(low: float | None, high: float | None) -> str:
    """``1100 .. 1200``; ``> 1488`` or ``< 512`` for a one-sided bound; ``-`` for none."""
    if low is not None and high is not None:
        return f"{elo_text(low)} .. {elo_text(high)}"
    if low is not None:
        return f"> {elo_text(low)}"
    return "-" if high is None else f"< {elo_text(high)}"


def _absolute_scores(run_dir: Path, tables: dict[str, int]) -> dict[str, str]:
    rows = built_mart_rows(
        run_dir,
        tables,
        ArenaMart.LEADERBOARD,
        columns=("player", "score"),
        where="player is not null and score is not null",
        order_by="player",
    )
    return {player: format(score, number_spec("score")) for player, score in rows}


def _agreement_line(run_dir: Path, tables: dict[str, int]) -> list[str]:
    rows = built_mart_rows(
        run_dir,
        tables,
        ArenaMart.SCORE_AGREEMENT,
        columns=("n_players", "spearman", "kendall_tau"),
        where="n_players >= 2",
        order_by="n_players",
    )
    if not rows:
        return []
    n_players, spearman, kendall = rows[0]
    return [
        f"agreement of the absolute and Bradley-Terry rankings over {n_players} players: "
        f"Spearman {spearman:{number_spec('spearman')}}, Kendall tau "
        f"{kendall:{number_spec('kendall_tau')}} (score_agreement.parquet)"
    ]
