"""The charts an arena run, or a series of them, adds to ``pdbench report``
(:mod:`pdbench.report`): the tournament's setup, the leaderboard as a forest plot of scores
with their 95% bootstrap intervals, the invalid replies of each phase and player beside it,
the Bradley-Terry ranking with its intervals when the run judged in pairs, the flagged judges,
the methods (:mod:`pdbench.arena.report_methods`), and a series' combined ranking. Values of
the marts and the manifest only."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.arena.report_methods import invalid_sections, methods_section, setup_sections
from pdbench.arena.series_report import series_methods_section
from pdbench.findings import bracket_text, read_rows
from pdbench.number_text import plural
from pdbench.report_svg import ForestRow, Section, forest_plot, table_section

__all__ = ["arena_sections", "series_sections"]


def _ranks(row: dict[str, Any]) -> str:
    low, high = row["rank_ci_low"], row["rank_ci_high"]
    if low is None:
        return "—"
    return str(low) if low == high else f"{low}–{high}"


def _interval(row: dict[str, Any], column: str, prefix: str, unit: str) -> str:
    low, high = row[f"{prefix}ci_low"], row[f"{prefix}ci_high"]
    return bracket_text(column, row[column], low, high, unit=unit)


def _invalid_note(row: dict[str, Any]) -> str:
    """``, 3 of 21 answers invalid`` beside a score that leaves them out; empty without."""
    invalid, answers = row.get("n_answers_invalid"), row.get("n_answers")
    return f", {invalid} of {plural(answers, 'answer')} invalid" if invalid else ""


def _forest(rows: list[dict[str, Any]], column: str, prefix: str, unit: str) -> list[ForestRow]:
    return [
        ForestRow(
            label=f"{row['rank']}. {row['player']}",
            value=row[column],
            low=row[f"{prefix}ci_low"],
            high=row[f"{prefix}ci_high"],
            text=f"{_interval(row, column, prefix, unit)}, rank {_ranks(row)}{_invalid_note(row)}",
            is_real=row[f"{prefix}ci_low"] is not None,
        )
        for row in rows
    ]


@dataclass(frozen=True)
class _RankedChart:
    """A forest plot of each ranked player's ``value`` with its 95% interval (the columns
    ``<prefix>ci_low`` and ``<prefix>ci_high``) and its rank's (``rank_ci_low``,
    ``rank_ci_high``)."""

    value: str
    prefix: str
    unit: str
    heading: str
    caption: str
    title: str
    axis: str
    rank: str = "rank"
    with_invalid: bool = False
    """Also read ``n_answers_invalid`` and ``n_answers``, written beside each score."""


def _ranked_forest(path: Path, chart: _RankedChart, *, where: str) -> Section | None:
    """``chart`` of the mart at ``path``'s rows ``where`` holds; None when there is none."""
    columns = (chart.rank, "player", chart.value, f"{chart.prefix}ci_low",
               f"{chart.prefix}ci_high", "rank_ci_low", "rank_ci_high",
               *(("n_answers_invalid", "n_answers") if chart.with_invalid else ()))  # fmt: skip
    rows = read_rows(path, columns, where=where, order_by=f"{chart.rank}, player")
    if not rows:
        return None
    ranked = [{**row, "rank": row[chart.rank]} for row in rows]
    return Section(
        chart.heading,
        chart.caption,
        forest_plot(
            _forest(ranked, chart.value, chart.prefix, chart.unit),
            title=chart.title,
            axis=chart.axis,
        ),
    )


_LEADERBOARD = _RankedChart(
    "score",
    "",
    "points",
    heading="Leaderboard",
    caption="Each player's mean normalised score (0 to 10) with its 95% bootstrap interval "
    "over questions, and the 95% interval of its rank; beside it, its answers left invalid "
    "(never scored), if any. Players without enough valid judgements are left out.",
    title="score of each player",
    axis="mean normalised score (points, 0 to 10)",
    with_invalid=True,
)
_BRADLEY_TERRY = _RankedChart(
    "elo",
    "elo_",
    "Elo",
    heading="Bradley-Terry ranking (pairwise verdicts)",
    caption="Strength in Elo points with its 95% bootstrap interval over questions.",
    title="Elo of each player",
    axis="Elo points",
)
_COMBINED = _RankedChart(
    "mean_score",
    "",
    "points",
    heading="Combined ranking",
    caption="Mean adjusted score over the tournaments a player was scored in, with its 95% t "
    "interval, and the 95% interval of its rank.",
    title="adjusted score of each player",
    axis="mean adjusted score (points)",
    rank="overall_rank",
)


def _fdr(manifest: dict[str, Any]) -> str:
    """The false discovery rate the run flagged judges at (``scoring.anomaly.fdr``)."""
    scoring = manifest.get("scoring")
    anomaly = scoring.get("anomaly") if isinstance(scoring, dict) else None
    fdr = anomaly.get("fdr") if isinstance(anomaly, dict) else None
    return f"{fdr:g}" if isinstance(fdr, int | float) else "—"


def _flagged(run_dir: Path, manifest: dict[str, Any]) -> Section | None:
    columns = ("judge", "player", "flag_kind", "relative_deviation", "q_value", "n_answers")
    rows = read_rows(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        columns,
        where="judge is not null and is_flagged",
        order_by="anomaly_rank, judge, player",
    )
    return table_section(
        "Flagged judges",
        "Judge x player pairs whose bias passes the permutation test after Benjamini-Hochberg "
        f"at the run's false discovery rate: flagged when q ≤ {_fdr(manifest)} (see Methods "
        "for the family).",
        columns,
        rows,
    )


_JOINT_MODELS = {
    "absolute": (
        "Absolute judging: every judgement fitted at once (least squares within questions): "
        "each player's quality against the mean player, each judge's leniency against the "
        "mean judge and its name and position bias over its plain scores, in points of 0 to "
        "10, with 95% bootstrap intervals over questions",
        "points",
        "points of 0 to 10",
    ),
    "pairwise": (
        "Pairwise judging: every verdict fitted at once, the self and name arms' too "
        "(maximum likelihood): each player's strength against the mean player, each judge's "
        "pull to the answer shown first and to its own answer, each player's pull when named, "
        "in Elo points (173.7 per unit of log-odds), with 95% intervals from the sandwich "
        "clustered by question",
        "Elo points",
        "Elo points",
    ),
}
"""Per kind of judging: the joint model's caption, its unit in a row's text and on the axis."""


def _joint_models(run_dir: Path) -> list[Section]:
    """For each kind of judging: the joint model's effects in its unit as a forest plot, its
    style effects in the caption, each with its 95% interval; none without one."""
    columns = ("judging", "effect_kind", "effect_label", "joint_effect", "joint_effect_ci_low",
               "joint_effect_ci_high", "effect_unit")  # fmt: skip
    rows = read_rows(
        run_dir / ArenaMart.JOINT_MODEL,
        columns,
        where="effect_label is not null and is_estimable",
        order_by="judging, list_position(['quality', 'leniency', 'named', 'fixed_order', "
        "'strength', 'position', 'self', 'name', 'style'], effect_kind), joint_effect desc, "
        "effect_label",
    )
    sections = []
    for judging, (caption, unit, axis) in _JOINT_MODELS.items():
        effects = [row for row in rows if row["judging"] == judging]
        if effects:
            sections.append(_joint_model(effects, judging, caption, unit, axis))
    return sections


def _joint_model(
    rows: list[dict[str, Any]], judging: str, caption: str, unit: str, axis: str
) -> Section:
    """One kind of judging's joint model: Elo points written as the catalogue writes an Elo
    (whole points), points of 0..10 as it writes joint_effect."""
    styles = [row for row in rows if row["effect_kind"] == "style"]
    charted = [row for row in rows if row["effect_kind"] != "style"]
    column = "elo" if judging == "pairwise" else "joint_effect"

    def text(row: dict[str, Any], unit: str) -> str:
        return bracket_text(
            column, row["joint_effect"], row["joint_effect_ci_low"], row["joint_effect_ci_high"],
            unit=unit,
        )  # fmt: skip

    style_text = "; ".join(
        f"{row['effect_label']} {text(row, '')} {row['effect_unit']}" for row in styles
    )
    return Section(
        f"One model for the biases: {judging} judging",
        f"{caption}. "
        + (
            f"Style: {style_text}."
            if styles
            else "No style effect: the answers do not vary, or their text is unknown "
            "(joint_model.parquet, joint_note)."
        ),
        forest_plot(
            [
                ForestRow(
                    label=row["effect_label"],
                    value=row["joint_effect"],
                    low=row["joint_effect_ci_low"],
                    high=row["joint_effect_ci_high"],
                    text=text(row, unit),
                    is_real=row["joint_effect_ci_low"] is not None,
                )
                for row in charted
            ],
            title=f"effects of the joint model of {judging} judging",
            axis=axis,
        ),
    )


def arena_sections(run_dir: Path) -> list[Section]:
    """The arena's sections of the report, in order: setup, results, methods."""
    from pdbench.overview import manifest_of

    manifest = manifest_of(run_dir)
    sections = [
        *setup_sections(run_dir, manifest),
        _ranked_forest(
            run_dir / ArenaMart.LEADERBOARD,
            _LEADERBOARD,
            where="player is not null and has_enough_data",
        ),
        *invalid_sections(run_dir, manifest),
        _ranked_forest(
            run_dir / ArenaMart.BRADLEY_TERRY, _BRADLEY_TERRY, where="player is not null"
        ),
        _flagged(run_dir, manifest),
        *_joint_models(run_dir),
        methods_section(run_dir, manifest),
    ]
    return [section for section in sections if section is not None]


def series_sections(series_dir: Path) -> list[Section]:
    """A series' sections: the combined ranking with its intervals, and the methods."""
    section = _ranked_forest(series_dir / SeriesMart.PLAYERS, _COMBINED, where="player is not null")
    ranking = [section] if section is not None else []
    return [*ranking, series_methods_section(series_dir)]
