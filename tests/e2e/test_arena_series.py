"""``pdbench leaderboard``: arena players across tournaments, with planted truth.

One real arena tournament is played and aggregated; four tournaments of a series are made
from it, each with the real run's manifest (its own run_id and start time) and a leaderboard
whose scores are planted: every tournament shifts everyone by its own offset, the steady
players keep their level, and one player improves by exactly 1 point a tournament.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.report import render_report
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena
from tests.servers.local import SAFETY_NET_S

runner = CliRunner()
OFFSETS = [1.0, -1.0, 0.0, 0.5]
"""How much easier each of the four tournaments scored than the series."""
LEVELS = {"p0": 7.0, "p1": 5.0, "p2": 3.0}
"""The steady players' level; p3 improves: 2, 3, 4, 5."""


def _rows(path: Path, sql: str) -> list[dict]:
    with duckdb.connect() as con:
        cursor = con.execute(sql.replace("{path}", f"read_parquet('{path}')"))
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _plant(run_dir: Path, index: int) -> None:
    """Rewrite the copy's leaderboard with the planted scores of tournament ``index``, and
    give it its own run_id and start time."""
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    manifest["run_id"] = f"season-{index}"
    manifest["started_at"] = f"2026-0{index + 1}-01T00:00:00Z"
    (run_dir / RunFiles.MANIFEST).write_text(json.dumps(manifest))
    scores = {**LEVELS, "p3": 2.0 + index}
    values = ", ".join(
        f"('{p}', {s + OFFSETS[index]}, {s + OFFSETS[index] - 0.5}, {s + OFFSETS[index] + 0.5})"
        for p, s in scores.items()
    )
    path = run_dir / ArenaMart.LEADERBOARD
    with duckdb.connect() as con:
        con.execute(
            f"copy (select board.* replace (planted.score as score, planted.low as ci_low, "
            f"planted.high as ci_high, true as has_enough_data) "
            f"from read_parquet('{path}') as board "
            f"join (values {values}) as planted (player, score, low, high) using (player)) "
            f"to '{path}.new' (format parquet)"
        )
    Path(f"{path}.new").replace(path)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of four planted tournaments, and a PD run that is no tournament."""
    folder = tmp_path_factory.mktemp("series")
    shutil.copytree(CONFIGS, folder / "configs")
    config = write_arena(folder / "configs", run_id="season", bootstrap={"n": 20})
    real = folder / "runs" / "season-0"
    result = runner.invoke(cli.app, ["run", str(config), "--output-dir", str(real)])
    assert result.exit_code == 0, result.output
    for index in range(1, len(OFFSETS)):
        shutil.copytree(real, folder / "runs" / f"season-{index}")
    for index in range(len(OFFSETS)):
        _plant(folder / "runs" / f"season-{index}", index)
    return folder / "runs"


@pytest.fixture(scope="module")
def series(runs: Path) -> Path:
    output = runs.parent / "leaderboard"
    result = runner.invoke(cli.app, ["leaderboard", str(runs), "--output-dir", str(output)])
    assert result.exit_code == 0, result.output
    assert "series of 4 tournaments" in result.stdout
    return output


def test_offsets_are_recovered_from_the_steady_players(series: Path):
    """Every player plays every tournament, so all four are anchors; the median of their
    deviations ignores the improving one: the planted offsets less their mean (0.125)."""
    rows = _rows(
        series / SeriesMart.PROGRESSION,
        "select distinct tournament_index, run_id, offset_score from {path} order by 1",
    )
    assert [r["run_id"] for r in rows] == [f"season-{i}" for i in range(4)]
    mean = sum(OFFSETS) / len(OFFSETS)
    for row, offset in zip(rows, OFFSETS, strict=True):
        assert row["offset_score"] == pytest.approx(offset - mean, abs=1e-9)


def test_the_improving_player_has_a_trend_and_the_steady_ones_none(series: Path):
    players = {
        r["player"]: r
        for r in _rows(series / SeriesMart.PLAYERS, "select * from {path} order by player")
    }
    assert set(players) == {"p0", "p1", "p2", "p3"}
    improver = players["p3"]
    assert improver["trend"] == pytest.approx(1.0, abs=1e-9)
    assert improver["trend_ci_low"] == pytest.approx(1.0, abs=1e-9)
    for name, level in LEVELS.items():
        steady = players[name]
        assert steady["trend"] == pytest.approx(0.0, abs=1e-9)
        assert steady["mean_score"] == pytest.approx(level + sum(OFFSETS) / 4, abs=1e-9)
        assert steady["score_sd"] == pytest.approx(0.0, abs=1e-9)
    # the improver moved through the field: 2..5 (adjusted) against steady 3, 5, 7
    assert improver["score_sd"] > 1
    assert [players[p]["overall_rank"] for p in ("p0", "p1", "p3", "p2")] == [1, 2, 3, 4]


def test_a_folder_skips_what_is_no_tournament_and_a_run_named_must_be_one(
    runs: Path, series: Path, tmp_path: Path
):
    pd_run = runs / "pd-run"
    pd_run.mkdir()
    broken = runs / "broken"
    broken.mkdir()
    manifest = json.loads((runs / "season-0" / RunFiles.MANIFEST).read_text())
    (pd_run / RunFiles.MANIFEST).write_text(json.dumps(manifest | {"game": "pd"}))
    (broken / RunFiles.MANIFEST).write_text('{"run_id": "cut off')
    try:
        result = runner.invoke(
            cli.app, ["leaderboard", str(runs), "--output-dir", str(tmp_path / "board")]
        )
        assert result.exit_code == 0, result.output
        skipped = result.stderr.splitlines()
        assert f"skipped {pd_run}: a pd run, not an arena run" in skipped
        (line,) = [s for s in skipped if s.startswith(f"skipped {broken}: ")]
        assert line.startswith(f"skipped {broken}: not a valid pdbench manifest")
        assert "skipped" not in result.stdout and "series of 4 tournaments" in result.stdout
        named = runner.invoke(
            cli.app, ["leaderboard", str(pd_run), str(runs / "season-0"), "--output-dir", "x"]
        )
        assert named.exit_code != 0
        assert named.stderr.strip() == f"error: {pd_run}: a pd run, not an arena run"
    finally:
        shutil.rmtree(pd_run)
        shutil.rmtree(broken)


def test_one_tournament_is_no_series(runs: Path, tmp_path: Path):
    result = runner.invoke(
        cli.app, ["leaderboard", str(runs / "season-0"), "--output-dir", str(tmp_path / "b")]
    )
    assert result.exit_code != 0
    assert "a series needs two finished arena runs with their metrics; found 1" in result.stderr


@pytest.mark.parametrize("how", ["named twice", "a link", "a copy"])
def test_a_run_given_twice_is_refused_naming_both_paths(runs: Path, tmp_path: Path, how: str):
    first = runs / "season-1"
    again = {
        "named twice": first,
        "a link": tmp_path / "link",
        "a copy": tmp_path / "copy",
    }[how]
    if how == "a link":
        again.symlink_to(first, target_is_directory=True)
    elif how == "a copy":
        shutil.copytree(first, again)
    result = runner.invoke(
        cli.app,
        [
            "leaderboard",
            str(runs / "season-0"),
            str(first),
            str(again),
            "--output-dir",
            str(tmp_path / "x"),
        ],
    )
    assert result.exit_code != 0
    assert result.stderr.strip() == (
        f"error: {first} and {again} are the same run (run id season-1, the same records): "
        "give each tournament once"
    )
    assert not (tmp_path / "x").exists()


def test_a_run_inside_a_folder_and_named_again_is_refused(runs: Path, tmp_path: Path):
    result = runner.invoke(
        cli.app,
        ["leaderboard", str(runs), str(runs / "season-2"), "--output-dir", str(tmp_path / "b")],
    )
    assert result.exit_code != 0
    assert f"{runs / 'season-2'} and {runs / 'season-2'} are the same run" in result.stderr


def test_the_same_run_id_with_other_records_is_another_run(runs: Path, tmp_path: Path):
    """One changed line of a record file is another run; a copy holds the same digest."""
    from pdbench.arena.records import ArenaFiles
    from pdbench.arena.series import records_digest

    copy = tmp_path / "copy"
    shutil.copytree(runs / "season-1", copy)
    assert records_digest(copy) == records_digest(runs / "season-1")
    answers = copy / ArenaFiles.ANSWERS
    lines = answers.read_text("utf-8").splitlines(keepends=True)
    answers.write_text("".join(lines[:-1]), "utf-8")
    assert records_digest(copy) != records_digest(runs / "season-1")


def test_the_output_folder_is_never_a_strangers(runs: Path, tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(cli.app, ["leaderboard", str(runs), "--output-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert "holds notes.txt, which a series does not write" in result.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_viewer_draws_the_series(series: Path, monkeypatch: pytest.MonkeyPatch):
    """The combined ranking as the mart holds it, and one progression line per player."""
    from pdbench.ui.arena import series_page as arena_series_page
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr("sys.argv", ["viewer", "--run-dir", str(series)])
    at = AppTest.from_file(str(Path(cli.STREAMLIT_APP)), default_timeout=SAFETY_NET_S).run()
    assert not at.exception
    table = at.dataframe[0].value
    players = _rows(series / SeriesMart.PLAYERS, "select * from {path} order by overall_rank")
    assert table["player"].tolist() == [r["player"] for r in players]
    progression = _rows(series / SeriesMart.PROGRESSION, "select * from {path}")
    chart = arena_series_page.progression_chart(
        duckdb.sql(f"select * from read_parquet('{series / SeriesMart.PROGRESSION}')").df(),
        adjusted=True,
    ).to_dict()
    (data,) = chart["datasets"].values()
    assert len(data) == len(progression) == 16
    assert {d["player"] for d in data} == {"p0", "p1", "p2", "p3"}
    assert chart["layer"][1]["encoding"]["y"]["field"] == "adjusted_score"


def test_pdbench_ui_opens_a_series(series: Path):
    result = runner.invoke(cli.app, ["ui", str(series), "--print-command"])
    assert result.exit_code == 0, result.output
    assert f"--run-dir {series}" in result.stdout


def test_the_series_report_names_its_tournaments(series: Path, tmp_path: Path):
    out = tmp_path / "series.html"
    result = runner.invoke(cli.app, ["report", str(series), "--output", str(out)])
    assert result.exit_code == 0, result.output
    record = json.loads((series / "series_manifest.json").read_text(encoding="utf-8"))
    folders = [entry["folder"] for entry in record["tournaments"]]
    assert len(folders) == 4
    text = out.read_text(encoding="utf-8")
    assert f"<dt>tournaments</dt><dd>4: {', '.join(folders)}</dd>" in text
    assert f"<dt>created at</dt><dd>{record['created_at']}</dd>" in text


def test_the_series_report_says_its_methods(series: Path):
    """The methods of the series: each tournament's scoring as its leaderboard holds it (the
    20 bootstrap replicates its config set), the four players scored in all four tournaments
    as anchors, the combined score's t interval and the trend, from the catalogue."""
    text = html.unescape(render_report(series))
    methods = text[text.index("<h2>Methods</h2>") :]
    items = re.findall(r"<li>(.*?)</li>", methods)
    assert items[0] == "Every interval is a 95% interval."
    assert items[1] == "Each tournament scored as its own report says:"
    assert items[2].startswith("Normalisation of every judgement (")
    assert "(20 replicates, seeded from the run's seed)" in items[3]
    assert items[4].startswith(
        "Anchoring: 4 players scored in every one of the 4 tournaments (p0, p1, p2, p3). "
        "The tournament's offset: how much higher its anchor players scored there than across "
        "the series: the median over the anchors"
    )
    assert items[5].startswith(
        "Combined score: a player's mean adjusted score over the tournaments it was scored "
        "in, with a Student's t interval over them"
    )
    assert items[6].startswith("Trend: Least-squares slope of the player's adjusted score")
    assert items[7] == "Intervals of the series' metrics (dbt_project/seeds/arena_metrics.csv):"
    assert items[8:] == [
        "percentiles of a bootstrap: adjusted score (points).",
        "Student's t: trend (points per tournament).",
    ]
