"""The raw files are read strictly and checked against each other: a value of the wrong JSON
type, rounds of a match that does not exist, a player judging its own answer and a match
short of a round each fail the build in one line that says where and what."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pdbench.aggregate import aggregate_run
from pdbench.arena.records import ArenaFiles
from pdbench.errors import AggregationError
from pdbench.pd.records import PDFiles

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir
from tests.integration.test_dbt_arena import run_dbt, tiny_run  # noqa: F401 (a fixture)


def _one_line(err: pytest.ExceptionInfo[AggregationError]) -> str:
    message = str(err.value)
    assert "\n" not in message
    return message


def _edit_lines(path: Path, edit) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(edit(i, line)) + "\n" for i, line in enumerate(lines)))


def test_a_payoff_written_as_a_string_fails_naming_the_file_and_column(tmp_path: Path):
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CC", "CC")])

    def as_string(i: int, line: dict) -> dict:
        return {**line, "agent_a_payoff": "500"} if i == 1 else line

    _edit_lines(run_dir / PDFiles.ROUNDS, as_string)
    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)
    message = _one_line(caught)
    assert f"{run_dir / PDFiles.ROUNDS}: agent_a_payoff" in message
    assert 'a JSON varchar ("500") where a DOUBLE belongs' in message


def test_a_fraction_where_a_count_belongs_fails(tmp_path: Path):
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CC", "CC")])
    _edit_lines(run_dir / PDFiles.MATCHES, lambda i, line: {**line, "rounds_played": 2.5})
    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)
    assert "rounds_played: a JSON double (2.5) where a INTEGER belongs" in _one_line(caught)


@pytest.mark.parametrize(
    ("file", "column", "value", "expected"),
    [
        # an exponent makes a JSON double, even of a whole number
        (PDFiles.MATCHES, "rounds_played", 1e3, "a JSON double (1000.0) where a INTEGER belongs"),
        # a whole number too large for its column is refused, not cut or wrapped
        (
            PDFiles.MATCHES,
            "rounds_played",
            10**12,
            "a JSON ubigint (1000000000000) where a INTEGER belongs",
        ),
        (PDFiles.ROUNDS, "agent_a_valid", 1, "a JSON ubigint (1) where a BOOLEAN belongs"),
        (PDFiles.ROUNDS, "agent_a_payoff", True, "a JSON boolean (true) where a DOUBLE belongs"),
    ],
    ids=["exponent", "too-large", "number-for-boolean", "boolean-for-number"],
)
def test_a_value_of_another_json_type_fails_naming_file_column_and_value(
    tmp_path: Path, file: str, column: str, value: object, expected: str
):
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CC", "CC")])
    _edit_lines(run_dir / file, lambda i, line: {**line, column: value})
    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)
    assert f"{run_dir / file}: {column}: {expected}" in _one_line(caught)


def test_rounds_of_a_match_that_does_not_exist_fail(tmp_path: Path):
    run_dir = write_run_dir(tmp_path / "run", [PlannedMatch("c", 0, "CC", "CD")])
    rounds = run_dir / PDFiles.ROUNDS
    ghost = [
        {**json.loads(line), "match_id": "ghost/0", "condition": "ghost"}
        for line in rounds.read_text().splitlines()
    ]
    with rounds.open("a") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in ghost)
    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)
    assert (
        "rounds.jsonl: rounds of match ghost/0, which does not exist: the match has no line "
        "in matches.jsonl, yet the run is completed"
    ) in _one_line(caught)


def test_a_completed_run_with_a_torn_last_round_names_the_match_the_cut_and_the_fix(
    tmp_path: Path,
):
    run_dir = write_run_dir(
        tmp_path / "run",
        [PlannedMatch("a", 0, "CC", "CC"), PlannedMatch("b", 0, "CCD", "CDD")],
    )
    rounds = run_dir / PDFiles.ROUNDS
    whole = rounds.read_bytes()
    rounds.write_bytes(whole[: whole.rstrip(b"\n").rfind(b"\n") + 1] + b'{"schema_version": 1, "ru')

    with pytest.raises(AggregationError) as caught:
        aggregate_run(run_dir)

    message = _one_line(caught)
    assert "1 match(es) of matches.jsonl without exactly their rounds: b/0 (2 of its 3 rounds)" in (
        message
    )
    assert f"{rounds}: line 5: a torn last line (25 bytes, a crash while writing) was cut off" in (
        message
    )
    assert (
        f"`pdbench run configs/experiment.yaml --output-dir {run_dir.resolve()} --resume` "
        "replays the matches"
    ) in message


def test_a_player_judging_its_own_answer_fails(tiny_run: Path, tmp_path: Path):  # noqa: F811
    run_dir = tmp_path / "run"
    shutil.copytree(tiny_run, run_dir, ignore=shutil.ignore_patterns("*.parquet"))
    answer = json.loads((run_dir / ArenaFiles.ANSWERS).read_text().splitlines()[0])
    judgments = run_dir / ArenaFiles.JUDGMENTS
    judgment = json.loads(judgments.read_text().splitlines()[0])
    own = {**judgment, "answer_id": answer["answer_id"], "judge": answer["answerer"]}
    with judgments.open("a") as handle:
        handle.write(json.dumps(own) + "\n")

    with pytest.raises(AggregationError) as caught:
        run_dbt(run_dir, "tag:arena", unit_tests=False)

    assert (
        f"judgments.jsonl: {answer['answerer']} judged its own answer {answer['answer_id']} "
        "(no arm of this run allows self-judging)"
    ) in _one_line(caught)
