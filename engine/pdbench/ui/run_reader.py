"""Every read the viewer makes: DuckDB over the Parquet marts and the raw JSONL of a run.

Nothing here writes, and nothing computes a metric: the queries filter, select and order
what the marts hold. Results are cached by ``st.cache_data`` keyed on the query, its
parameters and the path, mtime and size of every file it reads, so a rebuilt mart is read
again and an unchanged one is not.

The raw rounds of a PD run can be large (a million rounds is several hundred megabytes of
JSONL): the match queries read only the columns they need and only the rows of one match,
and never hand the whole file to pandas.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from pdbench.storage.schema import RunFiles

__all__ = [
    "answer_judgments",
    "arena_calls_summary",
    "calls_summary",
    "condition_aggregates",
    "cooperation_over_time",
    "file_stamp",
    "judge_player_bias",
    "judge_stats",
    "leaderboard",
    "mart",
    "match_calls",
    "match_rounds",
    "matches",
    "noise_responses",
    "payoff_matrix",
    "question",
    "question_answers",
    "question_list",
    "question_ratings",
    "read_manifest",
    "replicate_aggregates",
    "round_detail",
    "standings",
]

_ROUND_COLUMNS = {
    "match_id": "VARCHAR",
    "round_index": "INTEGER",
    "agent_a_intended_action": "VARCHAR",
    "agent_b_intended_action": "VARCHAR",
    "agent_a_action": "VARCHAR",
    "agent_b_action": "VARCHAR",
    "agent_a_payoff": "DOUBLE",
    "agent_b_payoff": "DOUBLE",
    "agent_a_cum_payoff": "DOUBLE",
    "agent_b_cum_payoff": "DOUBLE",
    "agent_a_valid": "BOOLEAN",
    "agent_b_valid": "BOOLEAN",
    "agent_a_attempts": "INTEGER",
    "agent_b_attempts": "INTEGER",
}
_DETAIL_COLUMNS = {
    "match_id": "VARCHAR",
    "round_index": "INTEGER",
    "prompts": "JSON",
    "raw_responses": "JSON",
}


def file_stamp(path: Path) -> tuple[str, int, int]:
    """``(path, mtime_ns, size)``: the part of a cache key that changes when the file does."""
    stat = path.stat()
    return (str(path), stat.st_mtime_ns, stat.st_size)


@st.cache_data(show_spinner=False, max_entries=512)
def _query(sql: str, params: tuple[Any, ...], stamps: tuple[tuple[str, int, int], ...]) -> Any:
    """Run ``sql`` with ``params`` on an in-memory DuckDB; ``stamps`` only key the cache."""
    del stamps
    with duckdb.connect(":memory:") as con:
        return con.execute(sql, list(params)).df()


def _read(sql: str, files: list[Path], *params: Any) -> pd.DataFrame:
    return _query(sql, params, tuple(file_stamp(path) for path in files))


def _json_source(path: Path, columns: dict[str, str]) -> str:
    spec = ", ".join(f"'{name}': '{kind}'" for name, kind in columns.items())
    return (
        f"read_json('{_quote(path)}', format = 'newline_delimited', columns = {{{spec}}}, "
        "ignore_errors = true)"
    )


def _quote(path: Path) -> str:
    return str(path).replace("'", "''")


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's ``run_manifest.json`` as a dict."""
    return json.loads((run_dir / RunFiles.MANIFEST).read_text(encoding="utf-8"))


def mart(run_dir: Path, name: str, *, key: str, order_by: str = "") -> pd.DataFrame:
    """All rows of the mart ``<name>.parquet`` whose ``key`` is not NULL (an empty external
    model holds one all-NULL row)."""
    path = run_dir / f"{name}.parquet"
    order = f" order by {order_by}" if order_by else ""
    return _read(
        f"select * from read_parquet('{_quote(path)}') where {key} is not null{order}", [path]
    )


# PD -------------------------------------------------------------------------------------


def condition_aggregates(run_dir: Path) -> pd.DataFrame:
    """Condition-level rows of ``aggregates.parquet``, by condition."""
    path = run_dir / "aggregates.parquet"
    return _read(
        f"select * from read_parquet('{_quote(path)}') "
        "where level = 'condition' order by condition",
        [path],
    )


def replicate_aggregates(run_dir: Path, condition: str) -> pd.DataFrame:
    """Replicate-level rows of ``aggregates.parquet`` for one condition, by replicate."""
    path = run_dir / "aggregates.parquet"
    return _read(
        f"select * from read_parquet('{_quote(path)}') "
        "where level = 'replicate' and condition = ? order by replicate",
        [path],
        condition,
    )


def matches(run_dir: Path) -> pd.DataFrame:
    """Every match of ``matches.jsonl`` (one small line per match), by condition and
    replicate."""
    path = run_dir / RunFiles.MATCHES
    columns = {
        "match_id": "VARCHAR",
        "condition": "VARCHAR",
        "replicate": "INTEGER",
        "agent_a_name": "VARCHAR",
        "agent_b_name": "VARCHAR",
        "agent_a_kind": "VARCHAR",
        "agent_b_kind": "VARCHAR",
        "planned_rounds": "INTEGER",
        "rounds_played": "INTEGER",
        "status": "VARCHAR",
        "abort_reason": "VARCHAR",
    }
    return _read(
        f"select * from {_json_source(path, columns)} "
        "where match_id is not null order by condition, replicate",
        [path],
    )


def match_rounds(run_dir: Path, match_id: str) -> pd.DataFrame:
    """The rounds of one match (actions, payoffs, validity, attempts), by round; prompts and
    replies are left out (see :func:`round_detail`)."""
    path = run_dir / RunFiles.ROUNDS
    return _read(
        f"select * from {_json_source(path, _ROUND_COLUMNS)} "
        "where match_id = ? order by round_index",
        [path],
        match_id,
    )


def round_detail(run_dir: Path, match_id: str, round_index: int) -> dict[str, Any]:
    """The stored prompts and raw replies of one round, per agent key (empty when the run did
    not store them)."""
    path = run_dir / RunFiles.ROUNDS
    rows = _read(
        f"select prompts, raw_responses from {_json_source(path, _DETAIL_COLUMNS)} "
        "where match_id = ? and round_index = ?",
        [path],
        match_id,
        round_index,
    )
    if rows.empty:
        return {"prompts": {}, "raw_responses": {}}
    row = rows.iloc[0]
    return {
        "prompts": json.loads(row["prompts"]) if isinstance(row["prompts"], str) else {},
        "raw_responses": (
            json.loads(row["raw_responses"]) if isinstance(row["raw_responses"], str) else {}
        ),
    }


def match_calls(run_dir: Path, match_id: str, round_index: int) -> pd.DataFrame:
    """The provider calls of one round of one match, by agent and attempt."""
    path = run_dir / RunFiles.CALLS
    columns = {
        "match_id": "VARCHAR",
        "round_index": "INTEGER",
        "agent": "VARCHAR",
        "attempt": "INTEGER",
        "status": "VARCHAR",
        "parse_rule": "VARCHAR",
        "provider": "VARCHAR",
        "model": "VARCHAR",
        "latency_ms": "DOUBLE",
        "tokens_in": "BIGINT",
        "tokens_out": "BIGINT",
        "cost_usd": "DOUBLE",
        "transport_retries": "INTEGER",
        "cache_hit": "BOOLEAN",
        "error": "VARCHAR",
    }
    return _read(
        f"select * exclude (match_id, round_index) from {_json_source(path, columns)} "
        "where match_id = ? and round_index = ? order by agent, attempt",
        [path],
        match_id,
        round_index,
    )


def cooperation_over_time(run_dir: Path, condition: str) -> pd.DataFrame:
    """Rows of ``cooperation_over_time.parquet`` for one condition (both levels), by
    round."""
    path = run_dir / "cooperation_over_time.parquet"
    return _read(
        f"select * from read_parquet('{_quote(path)}') "
        "where level = 'condition' and condition = ? order by round_index",
        [path],
        condition,
    )


def calls_summary(run_dir: Path) -> pd.DataFrame:
    """``calls_summary.parquet``: the run row first, then one row per condition and agent."""
    return mart(
        run_dir,
        "calls_summary",
        key="level",
        order_by="level = 'agent', condition, agent",
    )


def standings(run_dir: Path) -> pd.DataFrame:
    """``tournament_standings.parquet`` by overall rank."""
    return mart(run_dir, "tournament_standings", key="agent", order_by="overall_rank, agent")


def payoff_matrix(run_dir: Path) -> pd.DataFrame:
    """``tournament_payoff_matrix.parquet``."""
    return mart(run_dir, "tournament_payoff_matrix", key="agent", order_by="agent, opponent")


def noise_responses(run_dir: Path) -> pd.DataFrame:
    """``tournament_noise_responses.parquet`` (no rows when the run had no noise)."""
    return mart(
        run_dir,
        "tournament_noise_responses",
        key="agent",
        order_by="agent, flipped_side, flipped_to",
    )


# Arena ----------------------------------------------------------------------------------


def leaderboard(run_dir: Path) -> pd.DataFrame:
    """``leaderboard.parquet`` by rank."""
    return mart(run_dir, "leaderboard", key="player", order_by="rank, player")


def judge_stats(run_dir: Path) -> pd.DataFrame:
    """``judge_stats.parquet`` by judge."""
    return mart(run_dir, "judge_stats", key="judge", order_by="judge")


def judge_player_bias(run_dir: Path) -> pd.DataFrame:
    """``judge_player_bias.parquet`` by anomaly rank."""
    return mart(run_dir, "judge_player_bias", key="judge", order_by="anomaly_rank, judge, player")


def arena_calls_summary(run_dir: Path) -> pd.DataFrame:
    """``calls_summary.parquet`` of an arena run, by player and phase."""
    return mart(run_dir, "calls_summary", key="player", order_by="player, phase")


def question_list(run_dir: Path) -> pd.DataFrame:
    """Every question with its quality and statistics (``question_stats``), kept ones
    first, best quality first."""
    return mart(
        run_dir,
        "question_stats",
        key="question_id",
        order_by="is_kept desc, quality desc nulls last, question_id",
    )


def question(run_dir: Path, question_id: str) -> dict[str, Any]:
    """The record of one question from ``questions.jsonl`` (text, author, category)."""
    path = run_dir / RunFiles.QUESTIONS
    columns = {
        "question_id": "VARCHAR",
        "author": "VARCHAR",
        "category": "VARCHAR",
        "text": "VARCHAR",
        "position": "INTEGER",
        "attempts": "INTEGER",
    }
    rows = _read(
        f"select * from {_json_source(path, columns)} where question_id = ?", [path], question_id
    )
    return {} if rows.empty else rows.iloc[0].to_dict()


def question_ratings(run_dir: Path, question_id: str) -> pd.DataFrame:
    """The ratings of one question (rater, score, validity, raw reply), by rater."""
    path = run_dir / RunFiles.QUESTION_RATINGS
    columns = {
        "question_id": "VARCHAR",
        "rater": "VARCHAR",
        "score": "INTEGER",
        "is_valid": "BOOLEAN",
        "attempts": "INTEGER",
        "raw_reply": "VARCHAR",
    }
    return _read(
        f"select * exclude (question_id) from {_json_source(path, columns)} "
        "where question_id = ? order by rater",
        [path],
        question_id,
    )


def question_answers(run_dir: Path, question_id: str) -> pd.DataFrame:
    """The answers to one question with their scores from ``answer_scores.parquet``, best
    first."""
    answers_path = run_dir / RunFiles.ANSWERS
    scores_path = run_dir / "answer_scores.parquet"
    columns = {
        "answer_id": "VARCHAR",
        "question_id": "VARCHAR",
        "answerer": "VARCHAR",
        "text": "VARCHAR",
        "is_valid": "BOOLEAN",
        "attempts": "INTEGER",
    }
    return _read(
        f"""
        select
            answer.answer_id,
            answer.answerer,
            answer.text,
            answer.is_valid,
            answer.attempts,
            score.score,
            score.score_stddev,
            score.raw_score,
            score.n_judges,
            score.is_scored
        from {_json_source(answers_path, columns)} as answer
        left join read_parquet('{_quote(scores_path)}') as score
            on answer.answer_id = score.answer_id
        where answer.question_id = ?
        order by score.score desc nulls last, answer.answerer
        """,
        [answers_path, scores_path],
        question_id,
    )


def answer_judgments(run_dir: Path, question_id: str) -> pd.DataFrame:
    """The judgements of every answer to one question (answer id, judge, score, validity,
    raw reply), by answer and judge."""
    path = run_dir / RunFiles.JUDGMENTS
    columns = {
        "answer_id": "VARCHAR",
        "question_id": "VARCHAR",
        "judge": "VARCHAR",
        "score": "INTEGER",
        "is_valid": "BOOLEAN",
        "attempts": "INTEGER",
        "raw_reply": "VARCHAR",
    }
    return _read(
        f"select * exclude (question_id) from {_json_source(path, columns)} "
        "where question_id = ? order by answer_id, judge",
        [path],
        question_id,
    )
