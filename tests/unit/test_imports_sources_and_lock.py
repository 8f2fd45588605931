"""``pdbench import`` and the run directory: a source given twice is refused naming both,
the import holds the run lock ``pdbench run`` takes, a link as the output directory is one
line naming it, and a run id is a plain name wherever it comes from (a config, ``--run-id``,
the output directory's name, a shared run's manifest read by ``pdbench leaderboard``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from pdbench import cli
from pdbench.arena import series
from pdbench.arena.marts import ArenaMart
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.run_lock import hold_run_dir
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
COUNCIL = REPO / "tests" / "data" / "lm_council" / "lmc_ei.jsonl"
runner = CliRunner()

MAPPING = [
    "--set", "round=round", "--set", "action_a=x", "--set", "action_b=y",
    "--set", "agent_a_name=alice", "--set", "agent_b_name=bob", "--set", "actions=C:C,D:D",
]  # fmt: skip
ROWS = "round,x,y\n1,C,D\n2,D,D\n"


def _import(*args: str):
    return runner.invoke(cli.app, ["import", *args, "--no-aggregate"])


def _refused(result) -> str:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    return result.stderr


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ---------------------------------------------------------------------------------------------
# a source given twice


def _csv(tmp_path: Path) -> Path:
    source = tmp_path / "rounds.csv"
    source.write_text(ROWS)
    return source


def test_the_same_file_given_twice_is_refused_naming_both(tmp_path: Path):
    source = _csv(tmp_path)
    out = tmp_path / "out"
    result = _import("csv", str(source), str(source), *MAPPING, "--output-dir", str(out))
    assert _refused(result) == (
        f"error: {source}: the same file as {source} (given twice, or a link to it): its games "
        "would be imported twice\n"
    )
    assert not out.exists()


def test_a_file_and_a_link_to_it_are_refused(tmp_path: Path):
    source = _csv(tmp_path)
    link = tmp_path / "link.csv"
    link.symlink_to(source)
    result = _import("csv", str(source), str(link), *MAPPING, "--output-dir", str(tmp_path / "o"))
    assert _refused(result).startswith(f"error: {link}: the same file as {source} ")


def test_two_links_to_one_file_are_refused(tmp_path: Path):
    source = _csv(tmp_path)
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    first.symlink_to(source)
    second.symlink_to(source)
    result = _import("csv", str(first), str(second), *MAPPING, "--output-dir", str(tmp_path / "o"))
    assert _refused(result).startswith(f"error: {second}: the same file as {first} ")


def test_a_copy_with_the_same_content_is_refused(tmp_path: Path):
    source = _csv(tmp_path)
    copy = tmp_path / "copy.csv"
    shutil.copyfile(source, copy)
    result = _import("csv", str(source), str(copy), *MAPPING, "--output-dir", str(tmp_path / "o"))
    assert _refused(result).startswith(f"error: {copy}: the same content as {source} (sha256 ")


def _fontana(folder: Path, histories: dict[int, tuple[list[int], list[int]]]) -> Path:
    games = folder / "URND05" / "game_histories"
    games.mkdir(parents=True)
    for k, (a, b) in histories.items():
        (games / f"game_history_{k}.json").write_text(json.dumps({"A": a, "B": b}))
    return folder


def test_a_folder_and_a_link_to_it_are_refused(tmp_path: Path):
    folder = _fontana(tmp_path / "m_URNDx_ws10", {1: ([1, 0], [0, 0])})
    link = tmp_path / "n_URNDx_ws10"
    link.symlink_to(folder)
    out = tmp_path / "out"
    result = _import("fontana", str(folder), str(link), "--output-dir", str(out))
    assert _refused(result).startswith(f"error: {link}: the same folder as {folder} ")
    assert not out.exists()


def test_a_copy_of_a_folder_is_refused(tmp_path: Path):
    folder = _fontana(tmp_path / "m_URNDx_ws10", {1: ([1, 0], [0, 0])})
    copy = tmp_path / "copy" / "m_URNDx_ws10"
    shutil.copytree(folder, copy)
    result = _import("fontana", str(folder), str(copy), "--output-dir", str(tmp_path / "o"))
    assert _refused(result).startswith(f"error: {copy}: the same content as {folder} ")


def test_a_folder_reaching_anothers_games_through_a_link_is_refused(tmp_path: Path):
    folder = _fontana(tmp_path / "m_URNDx_ws10", {1: ([1, 0], [0, 0])})
    other = tmp_path / "k_URNDx_ws10"
    other.mkdir()
    (other / "URND05").symlink_to(folder / "URND05")
    (other / "notes.txt").write_text("another folder, the same games")
    result = _import("fontana", str(folder), str(other), "--output-dir", str(tmp_path / "o"))
    history = other / "URND05" / "game_histories" / "game_history_1.json"
    assert _refused(result).startswith(
        f"error: {history}: the same file as {folder / 'URND05' / 'game_histories'}"
    )


def test_two_games_played_alike_are_two_games(tmp_path: Path):
    # a model that always defects against URND(0) plays the same game twice: two games
    folder = _fontana(tmp_path / "m_URNDx_ws10", {1: ([0, 0], [0, 0]), 2: ([0, 0], [0, 0])})
    out = tmp_path / "out"
    result = _import("fontana", str(folder), "--output-dir", str(out))
    assert result.exit_code == 0, result.stderr
    assert len(list(read_jsonl(out / PDFiles.MATCHES))) == 2


# ---------------------------------------------------------------------------------------------
# the run lock


def test_an_import_over_a_run_another_process_writes_is_refused_and_changes_nothing(
    tmp_path: Path,
):
    source = _csv(tmp_path)
    out = tmp_path / "out"
    assert _import("csv", str(source), *MAPPING, "--output-dir", str(out)).exit_code == 0
    before = _snapshot(out)
    other = tmp_path / "other.csv"
    other.write_text("round,x,y\n1,C,C\n")
    with hold_run_dir(out):  # what `pdbench run` holds while it plays
        held = _snapshot(out)
        result = _import(
            "csv", str(other), *MAPPING, "--output-dir", str(out), "--overwrite"
        )  # fmt: skip
        line = _refused(result)
        assert line.startswith(f"error: {out}: in use by another pdbench process (pid ")
        assert _snapshot(out) == held
    assert {k: v for k, v in _snapshot(out).items() if k != ".pdbench.lock"} == {
        k: v for k, v in before.items() if k != ".pdbench.lock"
    }
    # once the writer is gone, the import replaces the run
    result = _import("csv", str(other), *MAPPING, "--output-dir", str(out), "--overwrite")
    assert result.exit_code == 0, result.stderr
    assert [r["agent_b_action"] for r in read_jsonl(out / PDFiles.ROUNDS)] == ["C"]


def test_an_import_into_a_new_folder_locked_by_another_writer_is_refused(tmp_path: Path):
    source = _csv(tmp_path)
    out = tmp_path / "out"
    with hold_run_dir(out, create=True):  # `pdbench run` has just started there
        _refused(_import("csv", str(source), *MAPPING, "--output-dir", str(out)))
        assert [p.name for p in out.iterdir()] == [".pdbench.lock"]


def test_a_refused_import_into_a_new_folder_leaves_no_folder(tmp_path: Path):
    source = tmp_path / "rounds.csv"
    source.write_text("round,x,y\n1,C,Z\n")
    out = tmp_path / "new" / "out"
    _refused(_import("csv", str(source), *MAPPING, "--output-dir", str(out)))
    assert not out.exists()


def test_a_link_as_the_output_directory_is_one_line_naming_it_and_why(tmp_path: Path):
    source = _csv(tmp_path)
    out = tmp_path / "out"
    assert _import("csv", str(source), *MAPPING, "--output-dir", str(out)).exit_code == 0
    before = _snapshot(out)
    link = tmp_path / "link"
    link.symlink_to(out)
    result = _import("csv", str(source), *MAPPING, "--output-dir", str(link), "--overwrite")
    assert _refused(result) == (
        f"error: {link}: is a symbolic link (to {out}); an import replaces the run directory "
        "itself: give the folder's own path\n"
    )
    assert _snapshot(out) == before


# ---------------------------------------------------------------------------------------------
# run ids


@pytest.mark.parametrize(
    ("run_id", "problem"),
    [
        ("../../../../X", "a run id is a plain name, without / or \\"),
        ("a/b", "a run id is a plain name, without / or \\"),
        ("a\\b", "a run id is a plain name, without / or \\"),
        ("..", "a run id is a plain name, without .."),
        ("a..b", "a run id is a plain name, without .."),
        (".hidden", "a run id cannot start with a dot"),
        ("a\nb", "a run id cannot hold a control character"),
        ("a\tb", "a run id cannot hold a control character"),
        ("x" * 101, "a run id has at most 100 characters (this one 101)"),
    ],
    ids=[
        "parents",
        "slash",
        "backslash",
        "dotdot",
        "inner dotdot",
        "dot",
        "newline",
        "tab",
        "long",
    ],
)
def test_a_run_id_that_is_not_a_plain_name_is_refused(tmp_path: Path, run_id: str, problem: str):
    source = _csv(tmp_path)
    out = tmp_path / "out"
    result = _import("csv", str(source), *MAPPING, "--output-dir", str(out), "--run-id", run_id)
    line = _refused(result)
    assert line.startswith("error: --run-id: "), line
    assert problem in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rounds.csv"]


def test_an_output_directory_whose_name_is_no_run_id_needs_run_id(tmp_path: Path):
    source = _csv(tmp_path)
    out = tmp_path / ".out"
    line = _refused(_import("csv", str(source), *MAPPING, "--output-dir", str(out)))
    assert line.startswith(f"error: {out}: the output directory's name '.out' is the run id")
    assert line.endswith("give --run-id\n")
    result = _import("csv", str(source), *MAPPING, "--output-dir", str(out), "--run-id", "r1")
    assert result.exit_code == 0, result.stderr
    manifest = json.loads((out / RunFiles.MANIFEST).read_text())
    assert manifest["run_id"] == "r1"


def test_a_config_run_id_goes_through_the_same_check(tmp_path: Path):
    shutil.copytree(REPO / "configs", tmp_path / "configs")
    config = tmp_path / "configs" / "experiment.yaml"
    config.write_text(config.read_text().replace("run_id: demo", "run_id: a..b", 1))
    result = runner.invoke(cli.app, ["validate", str(config)])
    assert result.exit_code == 2, result.output
    assert "run_id: a run id is a plain name, without .." in result.stderr


def test_a_tournament_folder_is_one_plain_name_whatever_the_run_id():
    assert series.tournament_folder(3, "../../../../X") == "003-.._.._.._.._X"
    assert series.tournament_folder(0, "a\\b\nc*[1]?") == "000-a_b_c__1__"
    assert series.tournament_folder(12, "season-1") == "012-season-1"
    assert len(series.tournament_folder(1, "x" * 500)) == 4 + 100


def test_a_series_of_runs_with_hostile_ids_writes_only_inside_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    runs = tmp_path / "shared" / "deep" / "runs"
    for index, run_id in enumerate(["../../../../X", "../../escaped"]):
        run_dir = runs / f"r{index}"
        assert _import("lm-council", str(COUNCIL), "--output-dir", str(run_dir)).exit_code == 0
        manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
        manifest["run_id"] = run_id  # a run shared by someone else: its manifest says anything
        (run_dir / RunFiles.MANIFEST).write_text(json.dumps(manifest))
        (run_dir / ArenaMart.LEADERBOARD).write_bytes(b"copied, never read here")
    # the marts are dbt's; only where the tournaments are collected is checked here
    monkeypatch.setattr(series, "invoke_dbt", lambda request: SimpleNamespace(locations=[]))
    output = tmp_path / "shared" / "deep" / "series"
    before = sorted(p for p in tmp_path.rglob("*") if not p.is_relative_to(output))
    series.build_series([runs], output)
    after = sorted(p for p in tmp_path.rglob("*") if not p.is_relative_to(output))
    assert after == before
    folders = sorted(p.name for p in (output / "tournaments").iterdir())
    assert len(folders) == 2
    assert all(name.startswith(("000-", "001-")) and "/" not in name for name in folders)
