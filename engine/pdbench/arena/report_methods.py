"""What an arena run's report says of its setup and its methods
(:mod:`pdbench.arena.report_sections`): the players and their models, the questions, judging and
scoring settings from the run's manifest; the invalid replies of each phase and of each player
beside the scores they leave out; and the methods, written from what the run used: the
normalisation, bootstrap size and interval widening as the leaderboard holds them, the
permutations and the Benjamini-Hochberg family of the judge x player table, the flagging
threshold of the manifest, and the interval kind of each metric (``arena_metrics.csv``)."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from pdbench.arena.fragility_text import tie_model_text
from pdbench.arena.marts import ArenaMart
from pdbench.column_labels import MISSING, format_cell
from pdbench.findings import read_rows
from pdbench.metric_catalogue import INTERVAL_METHODS, load_game_catalogue
from pdbench.report_svg import Section, fact_list_html, table_html

__all__ = [
    "SCORING_COLUMNS",
    "interval_items",
    "invalid_sections",
    "methods_section",
    "scoring_items",
    "setup_sections",
]

NORMALISATIONS = {
    "none": "the raw score",
    "shift": "score − the judge's mean + 5, so every judge awards 5 on average",
    "scale": "score × 5 / the judge's mean, so every judge awards 5 on average",
    "zscore": "5 + 2.5 × (score − the judge's mean) / the judge's sd, so every judge awards 5 "
    "on average",
    "fixed_effects": "score − the judge's offset in a fit of judge and answer effects, "
    "shifted so that the mean over all scores is 5",
}
"""What each ``scoring.normalization`` does to a judgement (docs/arena_scoring.md)."""

_PHASE_RECORDS = {
    "rate": ("question_ratings", "invalid_ratings", "ratings"),
    "answer": ("answers", "invalid_answers", "answers"),
    "judge": ("judgments", "invalid_judgments", "judgements"),
    "self_assess": ("self_assessments", "invalid_self_assessments", "self-assessments"),
}
"""A phase -> the manifest's count of its records, of those left invalid, and their name."""


def _mapping(value: Any) -> dict[str, Any]:
    """``value`` when it is a mapping (a part of the manifest), else an empty one."""
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> str:
    return (
        f"{value:g}"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else str(value)
    )


def _players(config: dict[str, Any]) -> list[list[str]]:
    rows = []
    for player in config.get("players") or []:
        if not isinstance(player, dict):
            continue
        model = f"{player.get('provider', MISSING)}/{player.get('model', MISSING)}"
        settings = []
        if player.get("temperature") is not None:
            settings.append(f"temperature {_number(player['temperature'])}")
        if player.get("reasoning_effort"):
            settings.append(f"reasoning effort {player['reasoning_effort']}")
        rows.append(
            [
                str(player.get("name") or MISSING),
                str(player.get("role") or "player"),
                model,
                "; ".join(settings),
            ]
        )
    return rows


def _filter_text(question_filter: Any) -> str | None:
    if not isinstance(question_filter, dict):
        return None
    return ", ".join(f"{key} {_number(value)}" for key, value in question_filter.items())


def setup_sections(run_dir: Path, manifest: dict[str, Any]) -> list[Section]:
    """The tournament's setup: its players and models, and its questions, judging and
    scoring settings."""
    config = manifest.get("config")
    if not isinstance(config, dict):
        return []
    scoring = _mapping(manifest.get("scoring"))

    def setting(key: str) -> Any:
        """A scoring setting as dbt read it (the manifest's scoring), else the config's."""
        return scoring.get(key, config.get(key))

    anomaly = _mapping(setting("anomaly"))
    pairing = _mapping(config.get("pairing"))
    judging = config.get("judging")
    facts = [
        ("questions per player", config.get("questions_per_player")),
        ("categories", ", ".join(str(c) for c in config.get("categories") or []) or None),
        ("question filter", _filter_text(setting("question_filter"))),
        ("judging", None if judging is None else f"{judging}"
         + (f" (pairs: {pairing.get('scheme')})" if judging == "pairwise" else "")),
        ("score format", config.get("score_format")),
        ("retries of an invalid reply", config.get("max_retries")),
        ("normalisation", setting("normalization")),
        ("fewest valid judgements to be ranked", setting("min_judgments")),
        ("bootstrap replicates", _mapping(setting("bootstrap")).get("n")),
        ("judge bias test", None if not anomaly else
         f"{_number(anomaly.get('permutations', MISSING))} permutations, flagged at q ≤ "
         f"{_number(anomaly.get('fdr', MISSING))} for a bias beyond "
         f"{_number(anomaly.get('min_effect', MISSING))} points"),
    ]  # fmt: skip
    shown = [(name, _number(value)) for name, value in facts if value not in (None, "")]
    sections = [
        Section(
            "Setup",
            "What the tournament played, from its manifest (a setting it does not record is "
            "left out).",
            fact_list_html(shown),
            "setup",
        )
    ]
    players = _players(config)
    if players:
        sections.append(
            Section(
                "Players",
                "Every player with its role and model.",
                table_html(["player", "role", "model", "settings"], players),
                place="setup",
            )
        )
    return sections


def _phase_rows(run_dir: Path, manifest: dict[str, Any]) -> list[list[str]]:
    calls = read_rows(
        run_dir / ArenaMart.CALLS_SUMMARY,
        ("phase", "n_calls", "n_invalid"),
        where="phase is not null",
        order_by="phase",
    )
    by_phase: dict[str, list[int]] = {}
    for row in calls:
        totals = by_phase.setdefault(row["phase"], [0, 0])
        totals[0] += int(row["n_calls"] or 0)
        totals[1] += int(row["n_invalid"] or 0)
    counts = _mapping(manifest.get("counts"))
    phases = list(dict.fromkeys([*by_phase, *(p for p in _PHASE_RECORDS if p in by_phase)]))
    rows = []
    for phase in phases:
        attempts, invalid = by_phase.get(phase, [0, 0])
        left = MISSING
        if phase in _PHASE_RECORDS:
            total_key, invalid_key, noun = _PHASE_RECORDS[phase]
            if total_key in counts and invalid_key in counts:
                total, bad = int(counts[total_key]), int(counts[invalid_key])
                share = f" ({bad / total:.1%})" if total else ""
                left = f"{bad} of {total} {noun}{share}"
        rows.append(
            [
                phase,
                str(attempts),
                str(invalid),
                format_cell("invalid_attempt_share", invalid / attempts if attempts else None),
                left,
            ]
        )
    return rows


def _player_rows(run_dir: Path) -> list[list[str]]:
    answers = {
        row["player"]: row
        for row in read_rows(
            run_dir / ArenaMart.LEADERBOARD,
            ("player", "n_answers", "n_answers_invalid", "n_judgments"),
            where="player is not null",
            order_by="player",
        )
    }
    judges = {
        row["judge"]: row
        for row in read_rows(
            run_dir / ArenaMart.JUDGE_STATS,
            ("judge", "n_judgments", "n_invalid", "n_question_ratings", "rating_invalid_rate"),
            where="judge is not null",
            order_by="judge",
        )
    }
    rows = []
    for player in sorted({*answers, *judges}):
        answer, judge = answers.get(player, {}), judges.get(player, {})
        n_answers, n_invalid = answer.get("n_answers"), answer.get("n_answers_invalid")
        n_judged, n_bad = judge.get("n_judgments"), judge.get("n_invalid")
        rows.append(
            [
                player,
                f"{n_invalid} of {n_answers}" if n_answers else MISSING,
                str(answer["n_judgments"]) if answer.get("n_judgments") is not None else MISSING,
                f"{n_bad} of {n_judged}" if n_judged else MISSING,
                format_cell("rating_invalid_rate", judge.get("rating_invalid_rate")),
            ]
        )
    return rows


def invalid_sections(run_dir: Path, manifest: dict[str, Any]) -> list[Section]:
    """The invalid replies of each phase (attempts, and the records left invalid after every
    retry) and of each player (its answers left invalid beside the valid judgements its score
    rests on, its judgements and ratings left invalid)."""
    sections = []
    phases = _phase_rows(run_dir, manifest)
    if phases:
        sections.append(
            Section(
                "Invalid replies by phase",
                "Provider calls of each phase (retries included), those whose reply could not "
                "be read, and the records still invalid after every retry: an invalid answer is "
                "not scored, an invalid judgement or rating is never counted.",
                table_html(
                    ["phase", "attempts", "invalid replies", "share of attempts", "left invalid"],
                    phases,
                ),
            )
        )
    players = _player_rows(run_dir)
    if players:
        sections.append(
            Section(
                "Invalid replies by player",
                "Each player's answers left invalid (never scored), the valid judgements its "
                "score rests on, and, as a judge, its judgements and question ratings left "
                "invalid.",
                table_html(
                    [
                        "player",
                        "answers left invalid",
                        "valid judgements of its answers",
                        "its judgements left invalid",
                        "its ratings left invalid",
                    ],
                    players,
                ),
            )
        )
    return sections


def _one(values: set[Any]) -> str:
    shown = sorted(_number(value) for value in values if value is not None)
    return ", ".join(shown) if shown else MISSING


SCORING_COLUMNS = ("normalization", "bootstrap_n", "interval_expansion", "min_judgments")


def _leaderboard_items(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    rows = read_rows(
        run_dir / ArenaMart.LEADERBOARD,
        SCORING_COLUMNS,
        where="player is not null",
        order_by="player",
    )
    return scoring_items(rows)


def scoring_items(rows: list[dict[str, Any]]) -> list[str]:
    """The normalisation, the bootstrap and the widening of the leaderboard rows ``rows`` (of
    one tournament, or of every tournament of a series), each value they hold named once."""
    if not rows:
        return []
    normalisations = {row["normalization"] for row in rows}
    described = "; ".join(
        f"{name}: {NORMALISATIONS.get(str(name), 'as docs/arena_scoring.md says')}"
        for name in sorted(str(n) for n in normalisations if n is not None)
    )
    expansion = {
        format_cell("interval_expansion", row["interval_expansion"])
        for row in rows
        if row["interval_expansion"] is not None
    }
    catalogue = load_game_catalogue("arena_metrics.csv")
    widening = catalogue.metric_of("interval_expansion").description.rstrip(".")
    return [
        f"Normalisation of every judgement ({described}); a player's score is the mean "
        "normalised judgement of its answers, an invalid judgement never counted.",
        f"Leaderboard intervals: {INTERVAL_METHODS['bootstrap']} over questions "
        f"({_one({row['bootstrap_n'] for row in rows})} replicates, seeded from the run's "
        f"seed), widened by the factor {', '.join(sorted(expansion)) or MISSING} ({widening}); "
        "a rank's interval from the same replicates. A player with fewer than "
        f"{_one({row['min_judgments'] for row in rows})} valid judgements is not ranked.",
    ]


def _bias_items(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    rows = read_rows(
        run_dir / ArenaMart.JUDGE_PLAYER_BIAS,
        ("judge", "q_value", "n_permutations", "is_flagged"),
        where="judge is not null",
        order_by="judge",
    )
    if not rows:
        return ["Judge bias: not tested (the run has no absolute judgements to test)."]
    anomaly = _mapping(_mapping(manifest.get("scoring")).get("anomaly"))
    tested = [row for row in rows if row["q_value"] is not None]
    flagged = sum(1 for row in rows if row["is_flagged"])
    return [
        "Judge bias: for each judge × player pair, a permutation test ("
        f"{_one({row['n_permutations'] for row in rows})} permutations, authors shuffled "
        "within questions) of the judge's excess on the player's answers beyond "
        f"{_number(anomaly.get('min_effect', MISSING))} points.",
        f"Benjamini-Hochberg: one family of all {len(tested)} judge × player pairs of the run "
        "(q-values); a pair is flagged when its q is at most the run's false discovery rate, "
        f"scoring.anomaly.fdr = {_number(anomaly.get('fdr', MISSING))}, so a flagged pair can "
        f"have q above 0.05 ({flagged} flagged). q-values below 0.001 are written < 0.001.",
    ]


def _bradley_terry_items(run_dir: Path, manifest: dict[str, Any]) -> list[str]:
    ties = ("tie_model", "tie_parameter", "tie_parameter_ci_low", "tie_parameter_ci_high")
    rows = read_rows(
        run_dir / ArenaMart.BRADLEY_TERRY,
        ("player", "bootstrap_n", *ties),
        where="player is not null",
        order_by="player",
    )
    if not rows:
        return []
    pairwise = _mapping(_mapping(manifest.get("scoring")).get("pairwise"))
    baseline = pairwise.get("baseline")
    return [
        "Bradley-Terry: strengths fitted to the pairwise verdicts, in Elo points "
        + (f"(1000 for the baseline, {baseline})" if baseline else "(1000 for a strength of 1)")
        + f", {tie_model_text(*(rows[0][name] for name in ties))}"
        + f", with the {INTERVAL_METHODS['bootstrap']} over questions "
        f"({_one({row['bootstrap_n'] for row in rows})} replicates)."
    ]


def interval_items(marts: tuple[str, ...] = ()) -> list[str]:
    """The interval kind of each metric of the arena's catalogue with one (only those of
    ``marts`` when given), by kind."""
    by_kind: dict[str, list[str]] = {}
    for metric in load_game_catalogue("arena_metrics.csv").metrics:
        if metric.interval != "none" and (not marts or set(marts) & set(metric.marts)):
            by_kind.setdefault(metric.interval, []).append(metric.label)
    return [
        f"{INTERVAL_METHODS.get(kind, kind)}: {', '.join(dict.fromkeys(labels))}."
        for kind, labels in by_kind.items()
    ]


def methods_section(run_dir: Path, manifest: dict[str, Any]) -> Section:
    """How the numbers of the report were computed, from the marts, the catalogue and the
    manifest of this run."""
    items = [
        "Every interval is a 95% interval.",
        *_leaderboard_items(run_dir, manifest),
        *_bradley_terry_items(run_dir, manifest),
        *_bias_items(run_dir, manifest),
        "Other metrics' intervals (dbt_project/seeds/arena_metrics.csv):",
        *interval_items(),
    ]
    body = "<ul class='methods'>" + "".join(f"<li>{escape(item)}</li>" for item in items)
    return Section(
        "Methods",
        "Written from the run's marts, its manifest and the metric catalogue.",
        body + "</ul>",
        place="methods",
    )
