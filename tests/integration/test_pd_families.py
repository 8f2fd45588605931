"""A run with ``analysis: {primary: [...]}``: ``comparisons.parquet`` corrects each family on
its own and states, for every comparison of at least 2 paired replicates, a positive minimum
detectable difference; a manifest without the key gets the default family.

The run: A plays URND at 0.5, URND at 0.6 or TFT, B always defects, 20 fixed rounds, 8
replicates, so all three pairs are compared. B's cooperation is 0 everywhere: its paired
differences do not vary, and its minimum detectable difference is the floor, 1/20.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.aggregate import aggregate_run
from pdbench.pd.marts import PDMart
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS

PRIMARY = ["cooperation_rate_a", "payoff_per_round_b"]
REPLICATES = 8
ROUNDS = 20
T_975_7, T_80_7 = 2.365, 0.896  # Student's t quantiles for 7 degrees of freedom


def _agent(policy: str, coop_prob: float | None = None) -> dict:
    agent: dict = {"type": "policy", "policy": policy}
    if coop_prob is not None:
        agent["coop_prob"] = coop_prob
    return agent


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pd_families")
    shutil.copytree(CONFIGS, folder / "configs")
    config = {
        "game": "pd",
        "run_id": "families",
        "seed": 11,
        "replicates": REPLICATES,
        "horizon": {"type": "fixed", "n": ROUNDS},
        "conditions": [
            {"name": "u5", "agent_a": _agent("URND", 0.5), "agent_b": _agent("ALLD")},
            {"name": "u6", "agent_a": _agent("URND", 0.6), "agent_b": _agent("ALLD")},
            {"name": "tft", "agent_a": _agent("TFT"), "agent_b": _agent("ALLD")},
        ],
        "analysis": {"primary": PRIMARY},
    }
    path = folder / "configs" / "families.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(folder / "run")])
    assert result.exit_code == 0, result.output
    return folder / "run"


def _rows(run_dir: Path) -> list[dict]:
    cursor = duckdb.execute(
        "select * from read_parquet(?) order by condition_1, condition_2, metric",
        [str(run_dir / PDMart.COMPARISONS)],
    )
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _benjamini_hochberg(rows: list[dict]) -> dict[tuple[str, str, str], float]:
    """The adjusted p of every row with a p-value, within the rows given."""
    tested = sorted(
        (row for row in rows if row["p_value"] is not None),
        key=lambda r: (r["p_value"], r["condition_1"], r["condition_2"], r["metric"]),
    )
    m, adjusted, running = len(tested), {}, 1.0
    for rank in range(m, 0, -1):
        row = tested[rank - 1]
        running = min(running, row["p_value"] * m / rank)
        adjusted[(row["condition_1"], row["condition_2"], row["metric"])] = running
    return adjusted


def test_the_primary_metrics_form_their_own_family(run_dir: Path) -> None:
    rows = _rows(run_dir)
    pairs = {(row["condition_1"], row["condition_2"]) for row in rows}
    assert len(pairs) == 3
    primary = [row for row in rows if row["family"] == "primary"]
    exploratory = [row for row in rows if row["family"] == "exploratory"]
    assert sorted({row["metric"] for row in primary}) == sorted(PRIMARY)
    assert len(primary) == 3 * len(PRIMARY) and len(primary) + len(exploratory) == len(rows)
    assert {row["family_size"] for row in primary} == {len(primary)}
    tested = sum(row["p_value"] is not None for row in exploratory)
    assert {row["family_size"] for row in exploratory} == {tested} and tested > 20
    for family in (primary, exploratory):
        expected = _benjamini_hochberg(family)
        for row in family:
            key = (row["condition_1"], row["condition_2"], row["metric"])
            assert row["p_value_bh"] == pytest.approx(expected[key], rel=1e-12), key


def test_every_comparison_of_two_replicates_states_a_positive_detectable_difference(
    run_dir: Path,
) -> None:
    rows = _rows(run_dir)
    assert rows and all(row["n_pairs"] >= 2 for row in rows)
    assert all(row["minimum_detectable_difference"] > 0 for row in rows)
    # a metric some replicates leave undefined (time to collapse) can pair fewer than 6
    assert all((row["replicates_for_interval"] == 6) == (row["n_pairs"] < 6) for row in rows)
    assert any(row["replicates_for_interval"] is None for row in rows)
    for row in rows:
        if row["metric"] == "cooperation_rate_b":  # ALLD everywhere: no variation
            assert row["sd_difference"] == 0
            assert row["minimum_detectable_difference"] == pytest.approx(1 / ROUNDS)


def test_the_detectable_difference_is_t_quantiles_times_the_sd_of_the_differences(
    run_dir: Path,
) -> None:
    replicate_rates = dict(
        ((condition, replicate), rate)
        for condition, replicate, rate in duckdb.execute(
            "select condition, replicate, cooperation_rate_a from read_parquet(?) "
            "where level = 'replicate'",
            [str(run_dir / PDMart.AGGREGATES)],
        ).fetchall()
    )
    differences = [
        replicate_rates[("u5", replicate)] - replicate_rates[("u6", replicate)]
        for replicate in range(REPLICATES)
    ]
    mean = sum(differences) / REPLICATES
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (REPLICATES - 1))
    assert sd > 0
    (row,) = [
        row
        for row in _rows(run_dir)
        if (row["condition_1"], row["condition_2"], row["metric"])
        == ("u5", "u6", "cooperation_rate_a")
    ]
    assert row["minimum_detectable_difference"] == pytest.approx(
        (T_975_7 + T_80_7) * sd / math.sqrt(REPLICATES), rel=1e-9
    )


def test_compare_names_the_family_and_what_an_inconclusive_difference_could_be(
    run_dir: Path,
) -> None:
    result = CliRunner().invoke(cli.app, ["compare", str(run_dir), "u5", "u6"])
    assert result.exit_code == 0, result.output
    assert "primary" in result.output and "exploratory" in result.output
    rows = {row["metric"]: row for row in _rows(run_dir) if row["condition_1"] == "u5"}
    # the seeded run's 8 replicates do not settle 0.5 against 0.6
    assert rows["cooperation_rate_a"]["verdict"] == "inconclusive"
    detectable = rows["cooperation_rate_a"]["minimum_detectable_difference"]
    assert (
        f"A's cooperation (primary): inconclusive; this run could detect differences of at "
        f"least {100 * detectable:.1f} pp; about {4 * REPLICATES} replicates would detect "
        f"{50 * detectable:.1f} pp (approximate)"
    ) in result.output


def test_a_manifest_without_the_key_gets_the_cooperation_of_each_seat(
    run_dir: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    shutil.copytree(run_dir, old)
    manifest_path = old / RunFiles.MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    del manifest["config"]["analysis"]
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    aggregate_run(old)
    primary = {row["metric"] for row in _rows(old) if row["family"] == "primary"}
    assert primary == {"cooperation_rate_a", "cooperation_rate_b"}


def test_the_report_says_the_family_sizes(run_dir: Path, tmp_path: Path) -> None:
    rows = _rows(run_dir)
    sizes = {row["family"]: row["family_size"] for row in rows}
    out = tmp_path / "report.html"
    result = CliRunner().invoke(cli.app, ["report", str(run_dir), "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert (
        f"Benjamini-Hochberg within two families: primary, {sizes['primary']} tests "
        f"(the compared pairs × the config&#x27;s analysis.primary: cooperation_rate_a, "
        f"payoff_per_round_b), and exploratory, {sizes['exploratory']} tests"
    ) in page
