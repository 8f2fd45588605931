"""``pdbench compare-runs`` on an imported run and a played one, each aggregated once: a
hand-made folder of Fontana et al.'s shape (``pdbench import fontana``) and the mock playing
configs/replicate/fontana_urnd.yaml at 2 replicates. Their rows line up by alpha; every cell
is the condition's row of ``aggregates.parquet``; a folder that is not an aggregated PD run
or an unknown metric is one line, exit 2.

The imported games, A the model (1 = cooperate):
- URND00: game 1 A C C D D, B D D D D; game 2 A C D D D, B D D D D. By hand, A cooperates
  2/4 = 0.5 and 1/4 = 0.25: mean 37.5%. A's payoff per round: (0+0+1+1)/4 = 0.5 and
  (0+1+1+1)/4 = 0.75: mean 0.625, shown as 0.625 (the catalogue's 3 decimals).
- URND05: one game, A C D C D, B C D D C: one replicate, so no interval.
- URND10: two games of mutual cooperation (A C C C C and C C C D against B's C C C C).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from pdbench.cli import app
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "replicate" / "fontana_urnd.yaml"
ALPHAS = [f"{tenth / 10:.1f}" for tenth in range(11)]
GAMES = {
    "URND00": {1: ([1, 1, 0, 0], [0, 0, 0, 0]), 2: ([1, 0, 0, 0], [0, 0, 0, 0])},
    "URND05": {1: ([1, 0, 1, 0], [1, 0, 0, 1])},
    "URND10": {1: ([1, 1, 1, 1], [1, 1, 1, 1]), 2: ([1, 1, 1, 0], [1, 1, 1, 1])},
}
runner = CliRunner()


def _write_fontana(folder: Path) -> Path:
    for alpha_folder, by_number in GAMES.items():
        histories = folder / alpha_folder / "game_histories"
        histories.mkdir(parents=True)
        for k, (a, b) in by_number.items():
            (histories / f"game_history_{k}.json").write_text(json.dumps({"A": a, "B": b}))
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare_runs")
    source = _write_fontana(root / "modelx_URNDx_ws10")
    imported, played = root / "modelx", root / "played"
    result = runner.invoke(app, ["import", "fontana", str(source), "--output-dir", str(imported)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        app, ["run", str(CONFIG), "--replicates", "2", "--output-dir", str(played)]
    )
    assert result.exit_code == 0, result.output
    return imported, played


def _table(*args: str) -> tuple[list[str], list[list[str]]]:
    """The header and the rows of the printed table (cells two or more spaces apart)."""
    result = runner.invoke(app, ["compare-runs", *args])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    cells = [[c.strip() for c in line.split("  ") if c.strip()] for line in lines[1:-1]]
    return cells[0], cells[1:]


def _mart(run_dir: Path, condition: str, *columns: str) -> tuple:
    with duckdb.connect() as con:
        return con.execute(
            f"select {', '.join(columns)} from read_parquet($path)"
            " where level = 'condition' and condition = $condition",
            {"path": str(run_dir / "aggregates.parquet"), "condition": condition},
        ).fetchone()


def test_a_row_per_run_and_condition_matched_by_alpha(runs: tuple[Path, Path]):
    imported, played = runs
    header, rows = _table(str(imported), str(played))
    assert header == [
        "matched as", "run", "source", "condition", "agents", "replicates",
        "A's cooperation (%) [95% interval]", "A's share of moves that were fallbacks (%)",
    ]  # fmt: skip
    expected = []
    for alpha in ALPHAS:
        if alpha in ("0.0", "0.5", "1.0"):
            expected.append((f"vs_urnd{alpha}", "modelx", f"modelx_vs_urnd{alpha}"))
        expected.append((f"vs_urnd{alpha}", "fontana_urnd", f"llm_vs_urnd{alpha}"))
    assert [(row[0], row[1], row[3]) for row in rows] == expected
    by_condition = {row[3]: row for row in rows}
    first = by_condition["modelx_vs_urnd0.0"]
    assert first[2] == "imported (fontana)"
    assert first[4:6] == ["modelx vs URND(0.0)", "2"]
    assert first[-1] == "not recorded"
    assert by_condition["llm_vs_urnd0.3"][2] == "played"
    assert by_condition["llm_vs_urnd0.3"][5] == "2"


def test_each_cell_is_the_marts_mean_and_interval(runs: tuple[Path, Path]):
    imported, played = runs
    _, rows = _table(str(imported), str(played), "--metric", "payoff_per_round_a")
    by_condition = {row[3]: row for row in rows}
    assert by_condition["modelx_vs_urnd0.0"][6].startswith("0.625 [")
    assert by_condition["modelx_vs_urnd0.5"][6] == (
        "2.250 [—: fewer than 2 replicates define it]"
    )  # A: C D C D against C D D C: 3 + 1 + 0 + 5 = 9 points in 4 rounds
    for run_dir, prefix in ((imported, "modelx"), (played, "llm")):
        for alpha in ("0.0", "1.0"):
            condition = f"{prefix}_vs_urnd{alpha}"
            if condition not in by_condition:
                continue
            mean, low, high, note = _mart(
                run_dir, condition, "payoff_per_round_a", "payoff_per_round_a_ci_low",
                "payoff_per_round_a_ci_high", "payoff_per_round_a_ci_note",
            )  # fmt: skip
            shown = f"[{low:.3f}, {high:.3f}]" if low is not None else f"[—: {note}]"
            assert by_condition[condition][6] == f"{mean:.3f} {shown}"
    fallback = _mart(played, "llm_vs_urnd0.3", "fallback_move_share_a")[0]
    assert by_condition["llm_vs_urnd0.3"][-1] == f"{100 * fallback:.1f}%"


def test_the_hand_computed_cooperation_of_the_imported_model(runs: tuple[Path, Path]):
    imported, _ = runs
    _, rows = _table(str(imported))
    by_condition = {row[3]: row for row in rows}
    low, high = _mart(imported, "modelx_vs_urnd0.0", "cooperation_rate_a_ci_low",
                      "cooperation_rate_a_ci_high")  # fmt: skip
    assert by_condition["modelx_vs_urnd0.0"][6] == f"37.5% [{100 * low:.1f}%, {100 * high:.1f}%]"


def test_a_folder_not_aggregated_is_one_line_naming_it_and_the_command(
    runs: tuple[Path, Path], tmp_path: Path
):
    imported, _ = runs
    plain = tmp_path / "plain"
    plain.mkdir()
    result = runner.invoke(app, ["compare-runs", str(imported), str(plain)])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"error: {plain}: not an aggregated PD run (build its tables: pdbench aggregate {plain})"
    )
    source = _write_fontana(tmp_path / "other_URNDx_ws10")
    raw = tmp_path / "raw"
    result = runner.invoke(
        app, ["import", "fontana", str(source), "--output-dir", str(raw), "--no-aggregate"]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["compare-runs", str(raw)])
    assert result.exit_code == 2
    assert f"pdbench aggregate {raw}" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_an_unknown_metric_is_one_line(runs: tuple[Path, Path]):
    imported, _ = runs
    result = runner.invoke(app, ["compare-runs", str(imported), "--metric", "cooperation_a"])
    assert result.exit_code == 2
    assert "unknown metric 'cooperation_a'" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
