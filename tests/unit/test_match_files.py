"""Counting the rounds of each match in a run directory, and what counts as complete."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdbench.errors import IntegrityError, RunDirError
from pdbench.pd.match_files import count_rounds, match_round_counts, raise_if_incomplete


def _round(match_id: str, index: int, *, spaced: bool = False) -> str:
    record = {"schema_version": 1, "run_id": "r", "match_id": match_id, "round_index": index}
    if spaced:
        return json.dumps(record) + "\n"
    return json.dumps(record, separators=(",", ":")) + "\n"


def _match(match_id: str, played: int) -> str:
    return json.dumps({"match_id": match_id, "rounds_played": played, "status": "ok"}) + "\n"


def test_count_rounds_reads_compact_and_spaced_lines_and_skips_a_torn_last_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rounds.jsonl"
    path.write_text(
        _round("a/0", 1) + _round("a/0", 2, spaced=True) + _round("b/1", 1) + '{"match_id":"b/'
    )
    assert count_rounds(path) == {"a/0": 2, "b/1": 1}


def test_count_rounds_refuses_a_damaged_line_that_is_not_the_last(tmp_path: Path) -> None:
    path = tmp_path / "rounds.jsonl"
    path.write_text(_round("a/0", 1) + "garbage\n" + _round("a/0", 2))
    with pytest.raises(RunDirError, match=r"rounds.jsonl: line 2: not a round record"):
        count_rounds(path)


def test_complete_matches_and_problems(tmp_path: Path) -> None:
    (tmp_path / "rounds.jsonl").write_text(
        _round("a/0", 1) + _round("a/0", 2) + _round("b/0", 1) + _round("c/0", 1)
    )
    (tmp_path / "matches.jsonl").write_text(_match("a/0", 2) + _match("b/0", 3) + _match("d/0", 0))
    counts = match_round_counts(tmp_path)
    assert counts.complete == {"a/0", "d/0"}
    assert counts.problems() == [
        "b/0: 1 of 3 rounds in rounds.jsonl",
        "c/0: 1 round but no line in matches.jsonl",
    ]
    with pytest.raises(IntegrityError, match=r"rounds lost: b/0: 1 of 3 .*; c/0: 1 round but"):
        raise_if_incomplete(tmp_path, counts.problems())


def test_a_run_with_every_round_passes_the_check(tmp_path: Path) -> None:
    (tmp_path / "rounds.jsonl").write_text(_round("a/0", 1) + _round("a/0", 2))
    (tmp_path / "matches.jsonl").write_text(_match("a/0", 2))
    raise_if_incomplete(tmp_path, match_round_counts(tmp_path).problems())
    assert match_round_counts(tmp_path).problems() == []
