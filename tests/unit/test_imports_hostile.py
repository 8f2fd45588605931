"""``pdbench import`` on sources a careless or hostile hand made: bytes that are not UTF-8,
long cells, payoffs JSON cannot hold, a column named twice, recorded payoffs the manifest's
table does not pay. Each is data imported as it is, or one line naming the file (the line
and the column when they apply), exit 2, nothing written; never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import dumps_line, read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest
from typer.testing import CliRunner

runner = CliRunner()

TABLE = ["--set", "round=round", "--set", "action_a=x", "--set", "action_b=y"]
NAMES = ["--set", "agent_a_name=alice", "--set", "agent_b_name=bob", "--set", "actions=C:C,D:D"]
PAID = ["--set", "payoff_a=pa", "--set", "payoff_b=pb"]


def _import(*args: str):
    return runner.invoke(cli.app, ["import", *args, "--no-aggregate"])


def _refused(result, start: str) -> str:
    """The one line of a refusal, which must start with ``start``."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(start), result.stderr
    return result.stderr


def _manifest(run_dir: Path) -> RunManifest:
    return RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())


# ---------------------------------------------------------------------------------------------
# a byte that is not UTF-8, in every format


def _csv(folder: Path) -> tuple[list[str], Path]:
    source = folder / "rounds.csv"
    source.write_bytes(b"round,x,y,note\n1,C,D,caf\xe9\n")
    return ["csv", str(source), *TABLE, *NAMES], source


def _jsonl(folder: Path) -> tuple[list[str], Path]:
    source = folder / "rounds.jsonl"
    source.write_bytes(b'{"round": 1, "x": "C", "y": "D"}\n{"round": 2, "x": "C\xe9"}\n')
    return ["jsonl", str(source), *TABLE, *NAMES], source


def _fontana(folder: Path) -> tuple[list[str], Path]:
    histories = folder / "m_URNDx_ws10" / "URND05" / "game_histories"
    histories.mkdir(parents=True)
    source = histories / "game_history_1.json"
    source.write_bytes(b'{"A": [1],\n "B": [0], "note": "caf\xe9"}')
    return ["fontana", str(folder / "m_URNDx_ws10")], source


def _axelrod(folder: Path) -> tuple[list[str], Path]:
    source = folder / "interactions.csv"
    source.write_bytes(
        b"Interaction index,Player index,Opponent index,Player name,Opponent name,Actions\n"
        b"0,0,1,Caf\xe9,Defector,CD\n"
        b"0,1,0,Defector,Caf\xe9,DD\n"
    )
    return ["axelrod", str(source)], source


def _lm_council(folder: Path) -> tuple[list[str], Path]:
    source = folder / "verdicts.jsonl"
    source.write_bytes(
        b'{"emobench_id": 1, "judge_model": "j", "first_completion_by": "a", '
        b'"second_completion_by": "b", "pairwise_choice": "A>B"}\n'
        b'{"emobench_id": 2, "judge_model": "j\xe9"}\n'
    )
    return ["lm-council", str(source)], source


def _peerrank(folder: Path) -> tuple[list[str], Path]:
    data = folder / "peerrank"
    data.mkdir()
    source = data / "phase1_questions_z.json"
    source.write_bytes(b'{"questions_by_model": {"m": [{"question": "caf\xe9?"}]}}\n')
    (data / "phase2_answers_z.json").write_text('{"questions": []}\n')
    (data / "phase3_rankings_z.json").write_text('{"evaluations_by_mode": {}}\n')
    return ["peerrank", str(data)], source


@pytest.mark.parametrize(
    ("write", "line", "offset"),
    [
        # "round,x,y,note\n" is 15 bytes, "1,C,D,caf" 9 more
        (_csv, 2, 24),
        # the first line is 33 bytes, '{"round": 2, "x": "C' 20 more
        (_jsonl, 2, 53),
        # '{"A": [1],\n' is 11 bytes, ' "B": [0], "note": "caf' 23 more
        (_fontana, 2, 34),
        # the header is 80 bytes, "0,0,1,Caf" 9 more
        (_axelrod, 2, 89),
        # the first line is 122 bytes, '{"emobench_id": 2, "judge_model": "j' 36 more
        (_lm_council, 2, 158),
        # '{"questions_by_model": {"m": [{"question": "caf' is 47 bytes
        (_peerrank, 1, 47),
    ],
    ids=["csv", "jsonl", "fontana", "axelrod", "lm-council", "peerrank"],
)
def test_a_byte_that_is_not_utf8_is_one_line_naming_the_file_line_and_offset(
    tmp_path: Path, write, line: int, offset: int
):
    args, source = write(tmp_path)
    out = tmp_path / "out"
    result = _import(*args, "--output-dir", str(out))
    _refused(
        result,
        f"error: {source}:{line}: not UTF-8 text: byte 0xe9 at byte offset {offset} "
        "(save the file as UTF-8)",
    )
    assert not out.exists()


def test_a_mapping_file_that_is_not_utf8_names_the_mapping(tmp_path: Path):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_bytes(b"round: r\xe9\n")
    source = tmp_path / "rounds.csv"
    source.write_text("r,x,y\n1,C,D\n")
    result = _import("csv", str(source), "--mapping", str(mapping), "--output-dir", "o")
    _refused(result, f"error: {mapping}: not UTF-8 text")


# ---------------------------------------------------------------------------------------------
# long cells are data


def test_a_200000_character_cell_in_an_unmapped_column_imports(tmp_path: Path):
    trace = "because " * 25_000  # 200,000 characters: a reasoning trace
    source = tmp_path / "rounds.csv"
    source.write_text(f'round,x,y,trace\n1,C,D,"{trace}"\n2,D,D,short\n')
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    rounds = list(read_jsonl(out / PDFiles.ROUNDS))
    assert [(r["agent_a_action"], r["agent_b_action"]) for r in rounds] == [("C", "D"), ("D", "D")]
    # the default 3/0/5/1: C against D pays A 0, then D against D 1
    assert rounds[-1]["agent_a_cum_payoff"] == 1.0


# ---------------------------------------------------------------------------------------------
# payoffs JSON cannot hold


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("1e308", "payoff '1e308' is outside -1e+12..1e+12"),
        ("-1e308", "payoff '-1e308' is outside -1e+12..1e+12"),
        ("1e400", "payoff '1e400' is not a finite number"),
        ("inf", "payoff 'inf' is not a finite number"),
        ("-Infinity", "payoff '-Infinity' is not a finite number"),
        ("nan", "payoff 'nan' is not a finite number"),
    ],
)
def test_a_payoff_beyond_a_finite_total_is_refused_naming_file_row_and_column(
    tmp_path: Path, cell: str, message: str
):
    source = tmp_path / "rounds.csv"
    source.write_text(f"round,x,y,pa,pb\n1,C,C,3,3\n2,C,C,{cell},3\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    _refused(result, f"error: {source}:3: column pa: {message}")
    assert not out.exists()


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_json_number_that_is_not_finite_is_refused_in_any_json_source(tmp_path: Path, token: str):
    source = tmp_path / "rounds.jsonl"
    source.write_text(
        '{"round": 1, "x": "C", "y": "C", "pa": 3, "pb": 3}\n'
        f'{{"round": 2, "x": "C", "y": "C", "pa": {token}, "pb": 3}}\n'
    )
    out = tmp_path / "out"
    result = _import("jsonl", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    _refused(result, f"error: {source}:2: {token} is not a finite number")
    assert not out.exists()


def test_the_jsonl_encoder_never_writes_nan_or_infinity():
    for value in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(ValueError):
            dumps_line({"agent_a_payoff": value})
    assert dumps_line({"agent_a_payoff": 1e12}) == '{"agent_a_payoff":1000000000000.0}\n'


# ---------------------------------------------------------------------------------------------
# a column named twice


def test_a_csv_header_naming_a_column_twice_is_refused_naming_it(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y,pa,pb,pa\n1,C,D,0,5,9\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    _refused(
        result,
        f"error: {source}:1: column pa: the header names this column twice (fields 4 and 6)\n",
    )
    assert not out.exists()


def test_an_axelrod_header_naming_a_column_twice_is_refused(tmp_path: Path):
    source = tmp_path / "interactions.csv"
    source.write_text(
        "Interaction index,Player index,Opponent index,Player name,Opponent name,Actions,"
        "Actions\n0,0,1,A,B,CD,DD\n0,1,0,B,A,DD,CD\n"
    )
    result = _import("axelrod", str(source), "--output-dir", str(tmp_path / "o"))
    _refused(result, f"error: {source}:1: column Actions: the header names this column twice")


def test_unnamed_columns_are_not_a_column_named_twice(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text(",round,x,y,,\n0,1,C,C,,\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr


def test_a_json_object_naming_a_key_twice_is_refused_naming_it(tmp_path: Path):
    source = tmp_path / "rounds.jsonl"
    source.write_text('{"round": 1, "x": "C", "y": "D", "pa": 0, "pb": 5, "pa": 9}\n')
    out = tmp_path / "out"
    result = _import("jsonl", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    _refused(result, f"error: {source}:1: column pa: an object names this key twice\n")


# ---------------------------------------------------------------------------------------------
# recorded payoffs and the manifest's table

AKATA_ROWS = "round,x,y,pa,pb\n1,C,C,8,8\n2,C,D,0,10\n3,D,C,10,0\n4,D,D,5,5\n"


def test_recorded_payoffs_of_all_four_pairs_are_the_manifests_table(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text(AKATA_ROWS)
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    payoffs = _manifest(out).config["payoffs"]
    assert payoffs == {"CC": [8.0, 8.0], "CD": [0.0, 10.0], "DC": [10.0, 0.0], "DD": [5.0, 5.0]}
    rounds = list(read_jsonl(out / PDFiles.ROUNDS))
    assert [r["agent_a_payoff"] for r in rounds] == [8.0, 0.0, 10.0, 5.0]


def test_recorded_payoffs_unlike_the_default_that_miss_a_pair_are_refused(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y,pa,pb\n1,C,C,8,8\n2,D,D,5,5\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    line = _refused(result, f"error: {source}:2: column pa: CC paid 8/8, not 3/3 as the default")
    assert "never plays CD, DC" in line and "name it in the mapping" in line
    assert not out.exists()


def test_recorded_payoffs_of_the_default_table_need_every_pair_played_no_more(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y,pa,pb\n1,C,C,3,3\n2,D,D,1,1\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert _manifest(out).config["payoffs"]["CC"] == [3.0, 3.0]


def test_recorded_payoffs_the_mappings_table_does_not_pay_are_refused(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text(AKATA_ROWS)
    out = tmp_path / "out"
    result = _import(
        "csv", str(source), *TABLE, *NAMES, *PAID, "--set", "payoffs=3,0,5,1",
        "--output-dir", str(out),
    )  # fmt: skip
    _refused(
        result, f"error: {source}:2: column pa: CC paid 8/8, but the mapping's payoffs pay 3/3"
    )
    assert not out.exists()


def test_two_tables_in_two_matches_are_refused_naming_both_rows(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y,pa,pb\n1,C,C,8,8\n1,C,C,3,3\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    _refused(
        result,
        f"error: {source}:3: column pa: two payoff tables: CC paid 8/8 at {source}:2: column pa, "
        "3/3 here",
    )


def test_recorded_payoffs_that_are_not_a_prisoners_dilemma_are_refused(tmp_path: Path):
    # Akata's 8/0/10/5 with the labels mapped the wrong way round: C is their F
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y,pa,pb\n1,C,C,5,5\n2,C,D,10,0\n3,D,C,0,10\n4,D,D,8,8\n")
    out = tmp_path / "out"
    result = _import("csv", str(source), *TABLE, *NAMES, *PAID, "--output-dir", str(out))
    line = _refused(
        result,
        f"error: {source}:2: column pa: the recorded payoffs (CC 5/5, CD 10/0, DC 0/10, DD 8/8) "
        "are not a prisoner's dilemma: agent_a: T > R > P > S (0, 5, 8, 10)",
    )
    assert "check which labels the mapping's actions call C and D" in line
    assert not out.exists()


def test_the_recorded_table_holds_across_files(tmp_path: Path):
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    first.write_text(json.dumps({"round": 1, "x": "C", "y": "C", "pa": 8, "pb": 8}) + "\n")
    second.write_text(json.dumps({"round": 1, "x": "C", "y": "C", "pa": 3, "pb": 3}) + "\n")
    out = tmp_path / "out"
    result = _import(
        "jsonl", str(first), str(second), *TABLE, *NAMES, *PAID, "--output-dir", str(out)
    )
    _refused(result, f"error: {second}:1: column pa: two payoff tables: CC paid 8/8 at {first}:1")
