"""``pdbench compare`` on a small hand-written PD run, aggregated once: the paired
differences read first minus second (either order), with interval, p, BH p, verdict and the
fallback moves; a pair the run did not compare is compared from the marts; an unknown
condition is one line.

The run: B always defects (DDDD). In ``alpha`` A is an LLM agent that cooperates every round,
its round 2 a fallback move (1 of 4 moves, 25%); in ``beta`` A is a policy playing CCDD in
replicate 0 and CDDD in replicate 1. ``gamma`` is played but compared with nothing.
By hand, A's cooperation: alpha 1, 1; beta 0.5, 0.25. Differences alpha - beta: 0.5, 0.75,
mean 0.625. Sign flips of (0.5, 0.75): means 0.625, -0.125, 0.125, -0.625; two of four are
as far from 0 as 0.625: exact p = 0.5. With two replicates no sign pattern reaches p <= 0.05
(the smallest p is 2/4), so the test rejects no difference and there is no 95% interval: the
cell shows the mean alone and a note says why; the verdict is inconclusive, few data (under
10 replicates). A's payoff per round: alpha 0 (C
against D), beta (0+0+1+1)/4 = 0.5 and (0+1+1+1)/4 = 0.75: difference -0.625.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdbench.aggregate import aggregate_run
from pdbench.cli import app
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("compare") / "run"
    matches = [
        PlannedMatch("alpha", 0, "CCCC", "DDDD", kind_a="llm", invalid_rounds_a=(2,)),
        PlannedMatch("alpha", 1, "CCCC", "DDDD", kind_a="llm", invalid_rounds_a=(2,)),
        PlannedMatch("beta", 0, "CCDD", "DDDD"),
        PlannedMatch("beta", 1, "CDDD", "DDDD"),
        PlannedMatch("gamma", 0, "DDDD", "DDDD"),
        PlannedMatch("gamma", 1, "DDDD", "DDDD"),
    ]
    write_run_dir(run_dir, matches)
    manifest_path = run_dir / RunFiles.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest["config"] = {"comparisons": [["alpha", "beta"]]}
    manifest_path.write_text(json.dumps(manifest))
    aggregate_run(run_dir)
    return run_dir


def _compare(run_dir: Path, *names: str):
    return CliRunner().invoke(app, ["compare", str(run_dir), *names])


def _row(output: str, label: str) -> list[str]:
    """The cells of the table row ``label`` (cells are two or more spaces apart)."""
    (line,) = [line for line in output.splitlines() if line.startswith(label + "  ")]
    return [cell.strip() for cell in line[len(label) :].split("  ") if cell.strip()]


def test_the_difference_first_minus_second_with_its_interval_and_p(run_dir: Path):
    result = _compare(run_dir, "alpha", "beta")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith("alpha (first) minus beta (second)")
    cells = _row(result.output, "A's cooperation")
    # unit, mean alpha, mean beta, difference [interval], replicates, p, BH p, family,
    # verdict, detectable, fallback
    assert cells[:6] == ["%", "100.0%", "37.5%", "+62.5 pp [—]", "2", "0.500"]
    assert float(cells[6]) >= 0.5
    # the run's config names no analysis.primary: the default, the cooperation of each seat
    assert cells[7:10] == ["primary", "inconclusive (few data)", "needs 6 replicates"]
    # A's fallback moves: 25% in alpha (an LLM), none to count for a policy
    assert cells[10] == "25.0%; — | —; —"
    assert _row(result.output, "A's payoff per round")[7] == "exploratory"
    assert (
        "A's cooperation (primary): inconclusive; no difference can be detected with 2 paired "
        "replicates (the sign-flip test cannot reach p <= 0.05); 6 would give an interval"
    ) in result.output.splitlines()
    payoff = _row(result.output, "A's payoff per round")
    # points per round with the catalogue's 3 decimals: 0.625, not 0.62 or 0.63
    assert payoff[:4] == ["points/round", "0.000", "0.625", "-0.625 [—]"]
    assert (
        "no interval (—): too few replicates for a 95% interval of the sign-flip test"
        in result.output.splitlines()
    )


def test_the_other_order_reads_second_minus_first(run_dir: Path):
    result = _compare(run_dir, "beta", "alpha")
    assert result.exit_code == 0, result.output
    cells = _row(result.output, "A's cooperation")
    assert cells[:6] == ["%", "37.5%", "100.0%", "-62.5 pp [—]", "2", "0.500"]
    assert cells[7:10] == ["primary", "inconclusive (few data)", "needs 6 replicates"]
    assert cells[10] == "—; — | 25.0%; —"


def test_every_row_has_a_human_label_and_a_unit(run_dir: Path):
    result = _compare(run_dir, "alpha", "beta")
    table = [line for line in result.output.splitlines()[2:] if "  " in line]
    assert table
    for line in table:
        label, unit = [cell for cell in line.split("  ") if cell.strip()][:2]
        assert "_" not in label, line
        assert unit.strip() in {"%", "points", "points/round", "round", "rounds"}, line


def test_an_unknown_condition_names_the_closest(run_dir: Path):
    result = _compare(run_dir, "alpah", "beta")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {run_dir / 'aggregates.parquet'}: condition: unknown condition 'alpah' "
        "(known: alpha, beta, gamma); did you mean 'alpha'?\n"
    )


def test_a_pair_not_compared_is_compared_from_the_marts(run_dir: Path):
    # A's cooperation: alpha 1, 1; gamma 0, 0: +100 pp in both replicates, so no interval;
    # of the 4 sign flips one negates nothing and three have mean +1: p = 2 x min(1, 4) / 4
    result = _compare(run_dir, "alpha", "gamma")
    assert result.exit_code == 0, result.output
    assert _row(result.stdout, "A's cooperation")[:10] == [
        "%", "100.0%", "0.0%", "+100.0 pp [—]", "2", "0.500", "—", "—",
        "inconclusive (few data)", "—",
    ]  # fmt: skip
    assert "not among the run's comparisons" in result.stdout
    assert "no interval (—): every paired difference is the same" in result.stdout


def test_a_run_not_aggregated_names_the_command(tmp_path: Path):
    run_dir = write_run_dir(tmp_path / "raw", [PlannedMatch("alpha", 0, "CC", "DD")])
    result = _compare(run_dir, "alpha", "beta")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {run_dir / 'aggregates.parquet'}: no such mart (the run's tables are not built); "
        f"build them: "
        f"uv run pdbench aggregate {run_dir}\n"
    )
