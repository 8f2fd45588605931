"""``pdbench import``: every format on small fixtures, the records it writes, and every kind
of bad input (one line naming file, line and column; exit 2; nothing written)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.imports import FORMATS
from pdbench.pd.records import MatchRecord, PDFiles, RoundRecord
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest, line_keys
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
AKATA_EXCERPT = REPO / "tests" / "data" / "import" / "akata_pd_excerpt.csv"
AKATA_MAPPING = REPO / "configs" / "import" / "akata_pd.yaml"
runner = CliRunner()


def _import(*args: str):
    return runner.invoke(cli.app, ["import", *args, "--no-aggregate"])


def _lines(run_dir: Path, name: str) -> list[dict]:
    return list(read_jsonl(run_dir / name))


def _manifest(run_dir: Path) -> RunManifest:
    return RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())


def _write_fontana(folder: Path, games: dict[str, dict[int, tuple[list[int], list[int]]]]):
    """A run folder of Fontana et al.'s shape: URND<aa>/game_histories/game_history_<k>.json."""
    for alpha_folder, by_number in games.items():
        histories = folder / alpha_folder / "game_histories"
        histories.mkdir(parents=True)
        for k, (a, b) in by_number.items():
            (histories / f"game_history_{k}.json").write_text(
                json.dumps({"A": a, "B": b}, indent=4)
            )
    (folder / "coop_probability_vs_urnd_alpha.csv").write_text("not read\n")
    return folder


def test_the_registry_names_every_format_with_its_game_and_help():
    games = {
        "csv": "pd",
        "jsonl": "pd",
        "fontana": "pd",
        "axelrod": "pd",
        "lm-council": "arena",
        "peerrank": "arena",
    }
    assert {name: importer.game for name, importer in FORMATS.items()} == games
    for name, importer in FORMATS.items():
        assert importer.name == name
        assert importer.help
    assert [n for n, i in FORMATS.items() if i.takes_mapping] == ["csv", "jsonl"]


def test_fontana_folders_become_one_condition_per_alpha_and_one_replicate_per_game(
    tmp_path: Path,
):
    folder = _write_fontana(
        tmp_path / "modelx_URNDx_ws10",
        {
            "URND00": {
                2: ([1, 0, 0], [0, 0, 0]),
                10: ([0, 0, 0], [0, 0, 0]),
                1: ([1, 1, 1], [0, 0, 0]),
            },
            "URND10": {1: ([1, 1, 0], [1, 1, 1])},
        },
    )  # fmt: skip
    out = tmp_path / "out"
    result = _import("fontana", str(folder), "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert "imported 4 games (12 rounds) of modelx vs URND(alpha)" in result.stdout
    matches = _lines(out, PDFiles.MATCHES)
    assert [(m["match_id"], m["agent_a_name"], m["agent_b_name"]) for m in matches] == [
        ("modelx_vs_urnd0.0/0", "modelx", "URND(0.0)"),
        ("modelx_vs_urnd0.0/1", "modelx", "URND(0.0)"),
        ("modelx_vs_urnd0.0/2", "modelx", "URND(0.0)"),
        ("modelx_vs_urnd1.0/0", "modelx", "URND(1.0)"),
    ]
    rounds = _lines(out, PDFiles.ROUNDS)
    by_match = {}
    for line in rounds:
        by_match.setdefault(line["match_id"], []).append(line["agent_a_action"])
    # game_history_1, _2, _10 in their number's order; 1 = cooperate
    assert by_match["modelx_vs_urnd0.0/0"] == ["C", "C", "C"]
    assert by_match["modelx_vs_urnd0.0/1"] == ["C", "D", "D"]
    assert by_match["modelx_vs_urnd0.0/2"] == ["D", "D", "D"]
    first = rounds[0]
    assert (first["agent_a_kind"], first["agent_b_kind"]) == ("llm", "policy")
    # 3/0/5/1: C against D pays A 0, B 5; running totals follow
    assert [(r["agent_a_payoff"], r["agent_b_cum_payoff"]) for r in rounds[:3]] == [
        (0.0, 5.0), (0.0, 10.0), (0.0, 15.0)
    ]  # fmt: skip


def test_imported_lines_have_the_played_records_shape_and_unknowns_are_null(tmp_path: Path):
    folder = _write_fontana(tmp_path / "m_URNDx_ws10", {"URND05": {1: ([1, 0], [0, 1])}})
    out = tmp_path / "out"
    assert _import("fontana", str(folder), "--output-dir", str(out)).exit_code == 0
    for line in _lines(out, PDFiles.ROUNDS):
        assert tuple(line) == line_keys(RoundRecord)
        RoundRecord.model_validate(line)
        # the LLM's validity, attempts, the seed and the time were never recorded
        assert line["agent_a_valid"] is None and line["agent_a_attempts"] is None
        assert line["match_seed"] is None and line["timestamp_utc"] is None
        # the policy made no call
        assert line["agent_b_valid"] is True and line["agent_b_attempts"] == 0
    (match,) = _lines(out, PDFiles.MATCHES)
    assert tuple(match) == line_keys(MatchRecord)
    assert match["started_at"] is None and match["status"] == "ok"
    assert (out / RunFiles.CALLS).read_text() == ""


def test_the_manifest_says_imported_with_every_source_files_sha256(tmp_path: Path):
    folder = _write_fontana(tmp_path / "m_URNDx_ws10", {"URND03": {1: ([1], [1]), 2: ([0], [1])}})
    out = tmp_path / "out"
    assert _import("fontana", str(folder), "--output-dir", str(out)).exit_code == 0
    manifest = _manifest(out)
    assert (manifest.source, manifest.status, manifest.game) == ("imported", "completed", "pd")
    assert manifest.imported is not None and manifest.imported.format == "fontana"
    files = sorted((folder / "URND03" / "game_histories").iterdir())
    assert [(Path(s.path), s.sha256) for s in manifest.imported.sources] == [
        (path.resolve(), hashlib.sha256(path.read_bytes()).hexdigest()) for path in files
    ]
    assert manifest.counts == {"rounds": 2, "matches": 2, "calls": 0}
    assert manifest.config["payoffs"]["DC"] == [5.0, 0.0]
    assert manifest.run_id == "out"


def test_akatas_pd_csv_imports_with_the_jf_mapping(tmp_path: Path):
    out = tmp_path / "akata"
    result = _import(
        "csv", str(AKATA_EXCERPT), "--mapping", str(AKATA_MAPPING), "--output-dir", str(out)
    )
    assert result.exit_code == 0, result.stderr
    matches = _lines(out, PDFiles.MATCHES)
    assert [(m["condition"], m["agent_b_kind"], m["rounds_played"]) for m in matches] == [
        ("act_gpt4_vs_act_gpt35", "llm", 10),
        ("act_gpt4_vs_act_defect_once", "policy", 10),
    ]
    rounds = _lines(out, PDFiles.ROUNDS)
    # row 3 of the file: J,F paid 0/10; J is cooperate, F defect
    second = rounds[1]
    assert (second["agent_a_action"], second["agent_b_action"]) == ("C", "D")
    assert (second["agent_a_payoff"], second["agent_b_payoff"]) == (0.0, 10.0)
    # the recorded totals of the file's last row: 90 and 10
    assert (rounds[-1]["agent_a_cum_payoff"], rounds[-1]["agent_b_cum_payoff"]) == (90.0, 10.0)
    manifest = _manifest(out)
    assert manifest.imported is not None
    assert manifest.imported.mapping is not None
    assert manifest.imported.mapping["actions"] == {"J": "C", "F": "D"}
    assert manifest.config["payoffs"]["CC"] == [8.0, 8.0]


def test_jsonl_with_a_match_column_and_the_mapping_on_the_command_line(tmp_path: Path):
    source = tmp_path / "games.jsonl"
    rows = [
        {"game": "g1", "t": 1, "x": "up", "y": "down"},
        {"game": "g2", "t": 1, "x": "down", "y": "down"},
        {"game": "g1", "t": 2, "x": "up", "y": "up"},
        {"game": "g2", "t": 2, "x": "up", "y": "down"},
    ]
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out"
    result = _import(
        "jsonl", str(source), "--output-dir", str(out),
        "--set", "match=game", "--set", "round=t", "--set", "action_a=x", "--set", "action_b=y",
        "--set", "agent_a_name=alice", "--set", "agent_b_name=bob",
        "--set", "actions=up:C,down:D", "--set", "payoffs=8,0,10,5",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    rounds = _lines(out, PDFiles.ROUNDS)
    assert [(r["match_id"], r["round_index"], r["agent_a_payoff"]) for r in rounds] == [
        ("alice_vs_bob/0", 1, 0.0),  # g1: C vs D pays A 0 (S)
        ("alice_vs_bob/0", 2, 8.0),  # C vs C: R
        ("alice_vs_bob/1", 1, 5.0),  # g2: D vs D: P
        ("alice_vs_bob/1", 2, 0.0),
    ]


AXELROD_INTERACTIONS = """\
Interaction index,Player index,Opponent index,Repetition,Player name,Opponent name,Actions,Score
0,0,1,0,Tit For Tat,Defector,CDDD,3
0,1,0,0,Defector,Tit For Tat,DDDD,8
1,0,1,1,Tit For Tat,Defector,CDDD,3
1,1,0,1,Defector,Tit For Tat,DDDD,8
2,0,0,0,Tit For Tat,Tit For Tat,CCCC,12
2,0,0,0,Tit For Tat,Tit For Tat,CCCC,12
"""


def test_an_axelrod_interactions_file_imports_one_match_per_interaction(tmp_path: Path):
    source = tmp_path / "interactions.csv"
    source.write_text(AXELROD_INTERACTIONS)
    out = tmp_path / "out"
    result = _import("axelrod", str(source), "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    matches = _lines(out, PDFiles.MATCHES)
    assert [m["match_id"] for m in matches] == [
        "Tit For Tat_vs_Defector/0",
        "Tit For Tat_vs_Defector/1",
        "Tit For Tat_vs_Tit For Tat/0",
    ]
    rounds = [r for r in _lines(out, PDFiles.ROUNDS) if r["match_id"].endswith("Defector/0")]
    assert "".join(r["agent_a_action"] + r["agent_b_action"] for r in rounds) == "CDDDDDDD"
    # the Score column: TFT 0+1+1+1 = 3, Defector 5+1+1+1 = 8
    assert (rounds[-1]["agent_a_cum_payoff"], rounds[-1]["agent_b_cum_payoff"]) == (3.0, 8.0)


def test_a_file_written_by_an_axelrod_tournament_imports(tmp_path: Path):
    import axelrod as axl

    source = tmp_path / "interactions.csv"
    players = [axl.TitForTat(), axl.Grudger(), axl.Defector()]
    tournament = axl.Tournament(players, turns=6, repetitions=2, seed=3)
    tournament.play(filename=str(source), progress_bar=False, processes=1)
    out = tmp_path / "out"
    result = _import("axelrod", str(source), "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    # 3 players, every pairing with itself included: 6 pairings x 2 repetitions
    assert len(_lines(out, PDFiles.MATCHES)) == 12
    assert len(_lines(out, PDFiles.ROUNDS)) == 12 * 6


# ---------------------------------------------------------------------------------------------
# bad input

HEADER = "round,player1,player2,answer1,answer2,points1,points2,total1,total2\n"
GOOD = [
    "1,a,b,J,J,8,8,8,8\n",
    "2,a,b,J,F,0,10,8,18\n",
]


@pytest.mark.parametrize(
    ("rows", "where", "message"),
    [
        ([GOOD[0], "2,a,b,J,F,0\n"], ":3", "6 fields, the header has 9"),
        ([GOOD[0], "two,a,b,J,F,0,10,8,18\n"], ":3: column round", "not a whole number"),
        ([GOOD[0], "2,a,b,J,X,0,10,8,18\n"], ":3: column answer2", "action 'X' is not in"),
        ([GOOD[0], "3,a,b,J,F,0,10,8,18\n"], ":3: column round", "round 3 follows round 1"),
        (["2,a,b,J,J,8,8,8,8\n"], ":2: column round", "a match starts at round 2"),
        ([*GOOD, "2,a,b,J,F,0,10,8,18\n"], ":4: column round", "duplicate round 2"),
        (
            [*GOOD, "3,a,b,J,F,1,10,9,28\n"],
            ":4: column points1",
            "mixed payoff tables in one match: CD paid 0/10 at line 3, 1/10 here",
        ),
        ([GOOD[0], "2,a,c,J,F,0,10,8,18\n"], ":3: column player2", "the agents change"),
        ([GOOD[0], "2,a,b,J,F,zero,10,8,18\n"], ":3: column points1", "not a number"),
    ],
    ids=[
        "row does not parse",
        "round not a number",
        "action outside the mapping",
        "rounds not 1..n",
        "first round not 1",
        "duplicate round",
        "mixed payoff tables",
        "agents change",
        "payoff not a number",
    ],
)
def test_a_bad_row_is_one_line_naming_file_line_and_column_and_nothing_is_written(
    tmp_path: Path, rows: list[str], where: str, message: str
):
    source = tmp_path / "rounds.csv"
    source.write_text(HEADER + "".join(rows))
    out = tmp_path / "out"
    result = _import("csv", str(source), "--mapping", str(AKATA_MAPPING), "--output-dir", str(out))
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith(f"error: {source}{where}: "), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rounds.csv"]


def test_a_duplicate_round_of_a_match_id_is_refused(tmp_path: Path):
    source = tmp_path / "rounds.jsonl"
    rows = [{"m": 1, "r": 1, "a": "C", "b": "C"}, {"m": 2, "r": 1, "a": "C", "b": "C"},
            {"m": 1, "r": 1, "a": "D", "b": "C"}]  # fmt: skip
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out"
    result = _import(
        "jsonl", str(source), "--output-dir", str(out),
        "--set", "match=m", "--set", "round=r", "--set", "action_a=a", "--set", "action_b=b",
        "--set", "agent_a_name=x", "--set", "agent_b_name=y", "--set", "actions=C:C,D:D",
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr == f"error: {source}:3: column r: duplicate round 1 in its match\n"
    assert not out.exists()


def test_a_mapping_that_leaves_a_required_field_unmapped_is_refused_before_reading(
    tmp_path: Path,
):
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text(
        "round: round\naction_a: answer1\nagent_a: p1\nagent_b: p2\nactions: {J: C, F: D}\n"
    )
    never_read = tmp_path / "missing.csv"
    result = _import(
        "csv", str(never_read), "--mapping", str(mapping), "--output-dir", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert result.stderr == f"error: {mapping}: action_b: required, unmapped\n"


def test_a_mapping_with_a_column_the_file_lacks_names_it(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("rnd,player1,player2,answer1,answer2,points1,points2\n")
    result = _import(
        "csv", str(source), "--mapping", str(AKATA_MAPPING), "--output-dir", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {source}:1: column round: no column 'round'")


def test_a_format_without_a_mapping_refuses_one(tmp_path: Path):
    result = _import(
        "fontana", str(tmp_path), "--set", "round=r", "--output-dir", str(tmp_path / "o")
    )
    assert result.exit_code == 2
    assert result.stderr == "error: format fontana takes no mapping (drop --mapping/--set)\n"


def test_an_unknown_format_lists_the_known_ones(tmp_path: Path):
    result = _import("stata", str(tmp_path), "--output-dir", str(tmp_path / "o"))
    assert result.exit_code == 2
    known = "(known: csv, jsonl, fontana, axelrod, lm-council, peerrank)"
    assert f"unknown import format 'stata' {known}" in result.stderr


def test_a_fontana_action_that_is_not_0_or_1_names_the_file_and_round(tmp_path: Path):
    folder = _write_fontana(tmp_path / "m_URNDx_ws10", {"URND01": {1: ([1, 2, 0], [1, 1, 1])}})
    out = tmp_path / "out"
    result = _import("fontana", str(folder), "--output-dir", str(out))
    history = folder / "URND01" / "game_histories" / "game_history_1.json"
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {history}: column A[1] (round 2): action 2 is neither 1 (cooperate) "
        "nor 0 (defect)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m_URNDx_ws10"]


def test_an_axelrod_interaction_with_one_row_is_refused(tmp_path: Path):
    source = tmp_path / "interactions.csv"
    source.write_text("\n".join(AXELROD_INTERACTIONS.splitlines()[:2]) + "\n")
    result = _import("axelrod", str(source), "--output-dir", str(tmp_path / "o"))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {source}:2: column Interaction index: ")


def test_an_existing_output_directory_is_kept_unless_overwrite(tmp_path: Path):
    folder = _write_fontana(tmp_path / "m_URNDx_ws10", {"URND05": {1: ([1], [1])}})
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = _import("fontana", str(folder), "--output-dir", str(out))
    assert result.exit_code == 2
    assert "already exists (--overwrite replaces it)" in result.stderr
    assert (out / "notes.txt").read_text() == "mine"


def test_a_second_import_with_overwrite_replaces_the_run(tmp_path: Path):
    folder = _write_fontana(tmp_path / "m_URNDx_ws10", {"URND05": {1: ([1], [1])}})
    out = tmp_path / "out"
    assert _import("fontana", str(folder), "--output-dir", str(out)).exit_code == 0
    result = _import("fontana", str(folder), "--output-dir", str(out), "--overwrite")
    assert result.exit_code == 0, result.stderr
    assert len(_lines(out, PDFiles.ROUNDS)) == 1
