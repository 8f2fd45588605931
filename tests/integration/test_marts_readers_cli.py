"""The commands that print or write a run's numbers (``report``, ``compare``, ``compare-runs``)
read only marts that are the run's: marts older than the raw records, or damaged, are one line
naming the file and the command that rebuilds them, exit 2, nothing printed or written; the
report never writes over a file of a run; runs scored under different payoff tables are not
compared in points, and their rates come with a heading that says so.

One hand-written PD run, aggregated once: in ``alpha`` A cooperates and B defects (CCCC
against DDDD), in ``beta`` both defect; two replicates each. Each test works on a copy (file
times kept, so the copy's marts are current until a test changes a file).
"""

from __future__ import annotations

import json
import shutil
from html import escape
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.cli import app
from pdbench.pd.records import PDFiles
from pdbench.storage.marts_manifest import write_marts_manifest
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir

runner = CliRunner()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("readers") / "run"
    write_run_dir(
        run_dir,
        [
            PlannedMatch("alpha", 0, "CCCC", "DDDD"),
            PlannedMatch("alpha", 1, "CCCC", "DDDD"),
            PlannedMatch("beta", 0, "DDDD", "DDDD"),
            PlannedMatch("beta", 1, "DDDD", "DDDD"),
        ],
    )
    manifest_path = run_dir / RunFiles.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["config"] = {"comparisons": [["alpha", "beta"]]}
    manifest_path.write_text(json.dumps(manifest))
    aggregate_run(run_dir)
    return run_dir


@pytest.fixture
def run(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "run"))


def _stale(run_dir: Path) -> None:
    """What ``--resume --no-aggregate`` does after an ``aggregate``: more rounds, no build."""
    rounds = run_dir / PDFiles.ROUNDS
    last = rounds.read_text().splitlines(keepends=True)[-1]
    with rounds.open("a") as handle:
        handle.write(last)


def _cut(path: Path) -> None:
    """A mart cut short (a full disk, a copy stopped half way)."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _scrambled(path: Path) -> None:
    """A mart whose footer is whole but whose pages are not."""
    data = bytearray(path.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    data[4 : len(data) - footer] = b"\xff" * (len(data) - footer - 4)
    path.write_bytes(bytes(data))


def _commands(run_dir: Path, out: Path) -> dict[str, list[str]]:
    return {
        "report": ["report", str(run_dir), "--output", str(out)],
        "compare": ["compare", str(run_dir), "alpha", "beta"],
        "compare-runs": ["compare-runs", str(run_dir)],
    }


def _one_line(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.exception is None or isinstance(result.exception, SystemExit)
    (line,) = result.stderr.splitlines()
    return line


def test_the_copies_are_current_and_every_command_reads_them(run: Path, tmp_path: Path):
    for name, args in _commands(run, tmp_path / "r.html").items():
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (name, result.output)
    assert "alpha" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize("command", ["report", "compare", "compare-runs"])
def test_marts_older_than_the_rounds_are_refused(run: Path, tmp_path: Path, command: str):
    _stale(run)
    out = tmp_path / "r.html"
    line = _one_line(_commands(run, out)[command])
    assert line.startswith(f"error: {run}: the tables are older than the run's raw files ")
    assert f"({PDFiles.ROUNDS} changed since they were built)" in line
    assert line.endswith(f"rebuild them: uv run pdbench aggregate {run}")
    assert not out.exists()


@pytest.mark.parametrize("command", ["report", "compare", "compare-runs"])
@pytest.mark.parametrize("damage", [_cut, _scrambled])
def test_a_damaged_aggregates_mart_is_one_line_naming_it(
    run: Path, tmp_path: Path, command: str, damage
):
    mart = run / "aggregates.parquet"
    damage(mart)
    out = tmp_path / "r.html"
    line = _one_line(_commands(run, out)[command])
    assert line.startswith(f"error: {mart}: the mart cannot be read (")
    assert line.endswith(f"rebuild the run's tables: uv run pdbench aggregate {run}")
    assert not out.exists()


@pytest.mark.parametrize(
    "name",
    [
        PDFiles.ROUNDS,
        PDFiles.MATCHES,
        RunFiles.MANIFEST,
        "aggregates.parquet",
        "marts_manifest.json",
        "notes.txt",
        "new.jsonl",
    ],
)
def test_the_report_never_writes_over_a_file_of_the_run(run: Path, name: str):
    target = run / name
    before = target.read_bytes() if target.exists() else None
    line = _one_line(["report", str(run), "--output", str(target)])
    assert line == (
        f"error: {target}: inside the run directory {run}, where a report is an .html file: "
        "its records, manifest and marts are never written over"
    )
    assert (target.read_bytes() if target.exists() else None) == before


def test_a_link_to_a_file_of_the_run_is_judged_by_that_file(run: Path, tmp_path: Path):
    rounds = run / PDFiles.ROUNDS
    before = rounds.read_bytes()
    link = tmp_path / "report.html"
    link.symlink_to(rounds)
    line = _one_line(["report", str(run), "--output", str(link)])
    assert line.startswith(f"error: {link}: inside the run directory {run}, ")
    assert rounds.read_bytes() == before


def test_a_report_inside_the_run_is_an_html_file(run: Path):
    target = run / "report.html"
    for _ in range(2):  # a previous report is written over
        result = runner.invoke(app, ["report", str(run), "--output", str(target)])
        assert result.exit_code == 0, result.output
        assert target.read_text().startswith("<!DOCTYPE html>")
    assert not list(run.glob(".*.tmp"))


def _payoffs(run: Path, run_id: str, table: dict[str, list[int]]) -> Path:
    """``run`` as if played under ``table`` (its manifest's, which the marts are scored on)."""
    manifest_path = run / RunFiles.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["run_id"] = run_id
    manifest["config"]["payoffs"] = table
    manifest_path.write_text(json.dumps(manifest))
    write_marts_manifest(run)
    return run


EIGHT = {"CC": [8, 8], "CD": [0, 10], "DC": [10, 0], "DD": [5, 5]}


def test_points_of_runs_under_different_payoff_tables_are_refused(built: Path, tmp_path: Path):
    other = _payoffs(Path(shutil.copytree(built, tmp_path / "eight")), "eight", EIGHT)
    for metric in ("payoff_per_round_a", "total_payoff_b", "exploitability_payoff_gap_a"):
        line = _one_line(["compare-runs", str(built), str(other), "--metric", metric])
        assert line.startswith(
            f"error: compare-runs: {metric} counts points, and the runs were scored under "
            "different payoff tables (R/S/T/P: fixture 3/0/5/1; eight 8/0/10/5): not comparable;"
        )


def test_rates_of_runs_under_different_payoff_tables_say_so(built: Path, tmp_path: Path):
    other = _payoffs(Path(shutil.copytree(built, tmp_path / "eight")), "eight", EIGHT)
    result = runner.invoke(app, ["compare-runs", str(built), str(other)])
    assert result.exit_code == 0, result.output
    heading = result.stdout.splitlines()[0]
    assert heading.endswith(
        "; note: the runs were scored under different payoff tables (R/S/T/P: fixture 3/0/5/1; "
        "eight 8/0/10/5): the rates are comparable as rates, but the incentives the players "
        "met were not the same"
    )
    # A cooperates in every round of alpha, in none of beta: 100% and 0% in both runs
    rows = [
        [cell.strip() for cell in line.split("  ") if cell.strip()]
        for line in result.stdout.splitlines()[2:-1]
    ]
    assert [(row[0], row[1], row[6].split(" [")[0]) for row in rows] == [
        ("alpha", "fixture", "100.0%"),
        ("alpha", "eight", "100.0%"),
        ("beta", "fixture", "0.0%"),
        ("beta", "eight", "0.0%"),
    ]


def test_runs_under_one_payoff_table_say_which(built: Path, tmp_path: Path):
    same = _payoffs(
        Path(shutil.copytree(built, tmp_path / "same")),
        "same",
        {"CC": [3, 3], "CD": [0, 5], "DC": [5, 0], "DD": [1, 1]},
    )
    result = runner.invoke(
        app, ["compare-runs", str(built), str(same), "--metric", "payoff_per_round_a"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0].endswith("; payoff table (R/S/T/P) 3/0/5/1 in every run")


HOSTILE = "<img src=https://evil.example/x.png><script>fetch('https://evil.example')</script>"


def _renamed(run: Path, names: dict[str, str]) -> Path:
    """``run`` with every value in ``names`` renamed, in raw files and marts alike (the
    marts' manifest written again: they are current)."""
    for path in run.glob("*.jsonl"):
        lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        renamed = [{k: names.get(v, v) if isinstance(v, str) else v for k, v in line.items()}
                   for line in lines]  # fmt: skip
        path.write_text("".join(json.dumps(line) + "\n" for line in renamed))
    manifest = json.loads((run / RunFiles.MANIFEST).read_text())
    manifest["run_id"] = names.get(manifest["run_id"], manifest["run_id"])
    (run / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    for path in run.glob("*.parquet"):
        table = pq.read_table(path)
        for i, field in enumerate(table.schema):
            if pa.types.is_string(field.type):
                values = [names.get(v, v) for v in table.column(i).to_pylist()]
                table = table.set_column(i, field.name, pa.array(values, type=pa.string()))
        pq.write_table(table, path)
    write_marts_manifest(run)
    return run


def test_the_report_writes_names_as_text(built: Path, tmp_path: Path):
    run = _renamed(
        Path(shutil.copytree(built, tmp_path / "run <b>x</b>")),
        {"alpha": f"alpha {HOSTILE}", "fixture": f"fixture {HOSTILE}"},
    )
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", str(run), "--output", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "<img" not in text and "<script" not in text and "<b>x" not in text
    assert f"<h1>fixture {escape(HOSTILE)}</h1>" in text
    assert f"alpha {escape(HOSTILE)}" in text
