"""The methods of a series' report (:mod:`pdbench.arena.report_sections`): what the run
report's methods say of one tournament (:mod:`pdbench.arena.report_methods`: normalisation,
bootstrap, widening, and the interval kind of each metric of ``arena_metrics.csv``), said of
every tournament of the series, with the anchoring that makes them comparable and how the
combined score, its rank and the trend are computed."""

from __future__ import annotations

from html import escape
from pathlib import Path

from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.arena.report_methods import SCORING_COLUMNS, interval_items, scoring_items
from pdbench.findings import read_rows
from pdbench.metric_catalogue import INTERVAL_METHODS, load_game_catalogue
from pdbench.number_text import plural
from pdbench.report_svg import Section

__all__ = ["series_methods_section"]


def _anchor_items(series_dir: Path) -> list[str]:
    """How the series makes its tournaments comparable: the offsets read off the anchors (the
    players scored in every tournament), as ``series_progression.parquet`` holds them."""
    rows = read_rows(
        series_dir / SeriesMart.PROGRESSION,
        ("tournament_index", "player"),
        where="player is not null",
        order_by="tournament_index, player",
    )
    tournaments = {row["tournament_index"] for row in rows}
    played = [{r["player"] for r in rows if r["tournament_index"] == t} for t in tournaments]
    anchors = sorted(set.intersection(*played)) if played else []
    catalogue = load_game_catalogue("arena_metrics.csv")
    offset = catalogue.metric_of("offset_score").description.rstrip(".")
    adjusted = catalogue.metric_of("adjusted_score").description.rstrip(".")
    named = f" ({', '.join(anchors)})" if anchors else ""
    return [
        f"Anchoring: {plural(len(anchors), 'player')} scored in every one of the "
        f"{plural(len(tournaments), 'tournament')}{named}. {offset}: the median over the "
        "anchors of the anchor's score there minus its mean over the series (0 without "
        f"anchors). Adjusted score: {adjusted[0].lower()}{adjusted[1:]}.",
    ]


def series_methods_section(series_dir: Path) -> Section:
    """How a series' combined ranking was computed: each tournament's own scoring as its
    leaderboard holds it, the anchoring of the tournaments, the combined score, rank and trend
    and the interval kind of each of the series' metrics (the metric catalogue): the run
    report's methods, for several tournaments."""
    boards = sorted(series_dir.glob(f"tournaments/*/{ArenaMart.LEADERBOARD}"))
    rows = [
        row
        for board in boards
        for row in read_rows(board, SCORING_COLUMNS, where="player is not null", order_by="player")
    ]
    trend = load_game_catalogue("arena_metrics.csv").metric_of("trend").description
    items = [
        "Every interval is a 95% interval.",
        "Each tournament scored as its own report says:",
        *scoring_items(rows),
        *_anchor_items(series_dir),
        f"Combined score: a player's mean adjusted score over the tournaments it was scored in, "
        f"with a {INTERVAL_METHODS['t']} interval over them (none from one tournament); its "
        "rank interval runs from 1 + the players whose interval lies wholly above its own to "
        "the players whose interval is not wholly below it.",
        f"Trend: {trend}",
        "Intervals of the series' metrics (dbt_project/seeds/arena_metrics.csv):",
        *interval_items(marts=(SeriesMart.PROGRESSION.removesuffix(".parquet"),
                                SeriesMart.PLAYERS.removesuffix(".parquet"))),
    ]  # fmt: skip
    body = "<ul class='methods'>" + "".join(f"<li>{escape(item)}</li>" for item in items)
    return Section(
        "Methods",
        "Written from the series' marts, its tournaments' leaderboards and the metric catalogue.",
        body + "</ul>",
        place="methods",
    )
