"""The strategy sections of a PD run's report: the strategy shares by SFEM
(``strategy_shares.parquet``) and, for agents asked for their strategy, what they stated against
what they played and what the stated tables would have earned (``stated_vs_played.parquet``).
Values of the marts only."""

from __future__ import annotations

from pathlib import Path

from pdbench.column_labels import format_cell, label
from pdbench.findings import bracket_text, read_rows
from pdbench.pd.marts import PDMart
from pdbench.report_svg import Section, table_html, table_section

__all__ = ["STATED_COLUMNS", "strategy_sections"]


def _strategy_shares(run_dir: Path) -> Section | None:
    """Each agent's strategy shares by SFEM with their 95% intervals, and its tremble: the
    strategies with a share of at least 0.5% or an interval reaching 5%."""
    rows = read_rows(
        run_dir / PDMart.STRATEGY_SHARES,
        ("agent_name", "strategy", "share", "share_ci_low", "share_ci_high", "tremble",
         "tremble_ci_low", "tremble_ci_high", "n_matches"),
        where="share >= 0.005 or share_ci_high >= 0.05",
        order_by="agent_name, share desc, strategy",
    )  # fmt: skip
    if not rows:
        return None
    table = [
        [
            str(row["agent_name"]),
            str(row["strategy"]),
            bracket_text("share", row["share"], row["share_ci_low"], row["share_ci_high"]),
            bracket_text("tremble", row["tremble"], row["tremble_ci_low"], row["tremble_ci_high"]),
            format_cell("n_matches", row["n_matches"]),
        ]
        for row in rows
    ]
    return Section(
        "Strategy shares (SFEM)",
        "Each agent name's matches, pooled over conditions and sides, as a mixture of nine "
        "strategies (ALLC, ALLD, TFT, STFT, GRIM, WSLS, GTFT, TF2T, ALT), each trembling to "
        "the other move with one fitted probability (Dal Bó and Fréchette's Strategy Frequency "
        "Estimation Method): the share of the agent's matches each explains, in percent, and "
        "the tremble, with 95% intervals from the fit's observed information. "
        "Strategies that prescribe the same in everything an agent met split its share "
        "equally; shares under 0.5% whose interval stays under 5% are left out.",
        table_html(
            [
                "agent",
                "strategy",
                f"{label('share')} [95%]",
                f"{label('tremble')} [95%]",
                label("n_matches"),
            ],
            table,
        ),
    )


STATED_COLUMNS = (
    "agent_name",
    "condition",
    "state",
    "stated_p",
    "played_p",
    "difference",
    "ci_low",
    "ci_high",
    "is_inconsistent",
    "n_matches",
)
"""The columns of ``stated_vs_played.parquet`` the report's table and the overview's sentence
read."""


def _stated_vs_played(run_dir: Path) -> Section | None:
    """What the agents asked for their strategy stated against what they played; None in a
    run where none was asked."""
    return table_section(
        "Stated against played",
        "Agents asked for their strategy (elicit_strategy) stated, before their first move of "
        "every match, the probability of cooperating first and after each outcome of the "
        "round before (own action first: cc, cd, dc, dd). Played: the share of their rounds "
        "in that state in which they cooperated. The difference (stated minus played) has a "
        "95% t interval over the matches, exact when it is the same in every match; "
        "'says one thing and plays another' where the interval excludes 0.",
        STATED_COLUMNS,
        read_rows(
            run_dir / PDMart.STATED_VS_PLAYED,
            STATED_COLUMNS,
            where="agent_name is not null",
            order_by="agent_name, condition, state",
        ),
    )


_EARNED_COLUMNS = (
    "agent_name",
    "condition",
    "stated_points_per_round",
    "played_points_per_round",
)


def _stated_earnings(run_dir: Path) -> Section | None:
    """What the stated tables would have earned, beside what the agents earned; None when
    no stated table was played (no statement, or only LLM opponents)."""
    return table_section(
        "What the stated strategies would have earned",
        "Mean points per round of each stated table played by pdbench against a copy of the "
        "same opponent (same random draws, planned rounds and noise; opponents that are "
        "policies only), beside what the agent earned in the same matches.",
        _EARNED_COLUMNS,
        read_rows(
            run_dir / PDMart.STATED_VS_PLAYED,
            _EARNED_COLUMNS,
            where="state = 'first' and stated_points_per_round is not null",
            order_by="agent_name, condition",
        ),
    )


def strategy_sections(run_dir: Path) -> list[Section | None]:
    """The strategy sections, in order; None for a section with nothing to show."""
    return [_strategy_shares(run_dir), _stated_vs_played(run_dir), _stated_earnings(run_dir)]
