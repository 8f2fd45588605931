"""The warning every arena summary gives when its intervals rest on few questions: the
overview (and so the report and ``pdbench aggregate``) and the printed tables. The threshold
is the marts' own (``min_questions``, ``is_few_questions`` of ``leaderboard.parquet`` and
``bradley_terry.parquet``, from the dbt macro ``arena_few_questions_n``); nothing here
repeats it."""

from __future__ import annotations

from pathlib import Path

from pdbench.arena.marts import ArenaMart
from pdbench.findings import Finding, read_rows
from pdbench.number_text import plural

__all__ = ["few_questions_findings", "few_questions_line"]

_RANKINGS = (
    (ArenaMart.LEADERBOARD, "leaderboard's", ("kept question", "kept questions")),
    (
        ArenaMart.BRADLEY_TERRY,
        "Bradley-Terry ranking's",
        ("question with scored verdicts", "questions with scored verdicts"),
    ),
)


def few_questions_line(
    ranking: str,
    counted: tuple[str, str],
    n_questions: int,
    min_questions: int,
    stretch: float | None,
) -> str:
    """``Few questions: the leaderboard's 95% intervals rest on 3 kept questions, ...``."""
    stretched = (
        f"; each arm is already stretched x{stretch:.2f} for their number"
        if stretch is not None
        else "; under 2 there is no interval at all"
    )
    return (
        f"Few questions: the {ranking} 95% intervals and rank intervals rest on "
        f"{plural(n_questions, *counted)}, "
        f"fewer than the {min_questions} from which their coverage was measured{stretched}; "
        "they may hold the truth less often than 95% (docs/arena_ratings.md#few-questions)."
    )


def _rows(run_dir: Path) -> list[str]:
    lines = []
    for mart, ranking, counted in _RANKINGS:
        if not (run_dir / mart).is_file():
            continue
        rows = read_rows(
            run_dir / mart,
            ("n_questions", "min_questions", "interval_expansion"),
            where="player is not null and is_few_questions",
            order_by="n_questions",
        )
        if rows:
            row = rows[0]
            lines.append(
                few_questions_line(
                    ranking,
                    counted,
                    row["n_questions"],
                    row["min_questions"],
                    row["interval_expansion"],
                )
            )
    return lines


def few_questions_findings(run_dir: Path) -> list[Finding]:
    """One finding per ranking whose intervals rest on fewer questions than the marts'
    ``min_questions``; none otherwise."""
    return [Finding("few_questions", line, "Leaderboard") for line in _rows(run_dir)]
