"""A 2,500-replicate run with a clear difference aggregates: its p-values are positive and tiny.

TFT and ALLC each play ALLD 2,500 times (noise 0.02, geometric stop 0.1), and the config
compares the two conditions. Beyond 200 common replicates the paired test is the normal limit
of the sign-flip distribution, z = |sum d| / sqrt(sum d^2); with thousands of replicates and a
clear difference z passes 38.6, where erfc(z / sqrt(2)) is below every double. Such a p-value
once underflowed to 0, failed the data test `p_value > 0` and stopped `pdbench run` with exit
1 and no comparisons.parquet. The differences are recomputed here from rounds.jsonl, apart
from the SQL.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import CONFIGS

SMALLEST_DOUBLE = 2.2250738585072014e-308
Z_975 = 1.959963984540054
REPLICATES = 2500


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("pd_large")
    shutil.copytree(CONFIGS, folder / "configs")
    policy = "agents/policies.yaml"
    config = {
        "game": "pd",
        "run_id": "large",
        "seed": 7,
        "replicates": REPLICATES,
        "noise": 0.02,
        "horizon": {"type": "geometric", "stop_prob": 0.1, "max_rounds": 200},
        "conditions": [
            {
                "name": "tft_vs_alld",
                "agent_a": {"ref": policy, "overrides": {"policy": "TFT"}},
                "agent_b": {"ref": policy, "overrides": {"policy": "ALLD"}},
            },
            {
                "name": "allc_vs_alld",
                "agent_a": {"ref": policy, "overrides": {"policy": "ALLC"}},
                "agent_b": {"ref": policy, "overrides": {"policy": "ALLD"}},
            },
        ],
        "comparisons": [["tft_vs_alld", "allc_vs_alld"]],
    }
    path = folder / "configs" / "large.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    result = CliRunner().invoke(cli.app, ["run", str(path), "--output-dir", str(folder / "run")])
    assert result.exit_code == 0, result.output
    (folder / "output.txt").write_text(result.output, encoding="utf-8")
    return folder / "run"


def _comparisons(run_dir: Path) -> dict[str, dict]:
    cursor = duckdb.execute("select * from read_parquet(?)", [str(run_dir / PDMart.COMPARISONS)])
    names = [column[0] for column in cursor.description]
    return {
        row[names.index("metric")]: dict(zip(names, row, strict=True)) for row in cursor.fetchall()
    }


def _cooperation_rates(run_dir: Path) -> dict[tuple[str, int], float]:
    """Per condition and replicate: side A's cooperation rate (executed actions)."""
    cooperations: dict[tuple[str, int], list[int]] = defaultdict(list)
    with (run_dir / PDFiles.ROUNDS).open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            key = (record["condition"], record["replicate"])
            cooperations[key].append(record["agent_a_action"] == "C")
    return {key: sum(values) / len(values) for key, values in cooperations.items()}


def _cooperation_differences(run_dir: Path) -> list[float]:
    """Per replicate: TFT's cooperation rate minus ALLC's."""
    rate = _cooperation_rates(run_dir)
    return [rate[("tft_vs_alld", r)] - rate[("allc_vs_alld", r)] for r in range(REPLICATES)]


def test_the_run_completes_and_writes_its_comparisons(run_dir: Path) -> None:
    manifest = json.loads((run_dir / RunFiles.MANIFEST).read_text())
    assert manifest["status"] == "completed"
    rows = _comparisons(run_dir)
    assert len(rows) >= 20
    for row in rows.values():
        assert 0 < row["p_value"] <= row["p_value_bh"] <= 1, row
        assert row["test_method"] == "normal limit of sign flips" and row["n_flips"] is None


def test_a_clear_difference_gets_a_tiny_positive_p_and_a_verdict(run_dir: Path) -> None:
    differences = _cooperation_differences(run_dir)
    n = len(differences)
    mean = sum(differences) / n
    z = abs(sum(differences)) / math.sqrt(sum(d * d for d in differences))
    # ALLC cooperates in ~98% of rounds, TFT against ALLD in little more than its first
    assert mean < -0.5 and z > 40
    row = _comparisons(run_dir)["cooperation_rate_a"]
    assert row["n_pairs"] == n == REPLICATES
    assert row["mean_difference"] == pytest.approx(mean, abs=1e-12)
    # erfc(40 / sqrt(2)) is about 1e-349: below the smallest double, so the bound stands in
    assert row["p_value"] == SMALLEST_DOUBLE and row["p_value_is_bound"] is True
    assert row["p_value_bh"] > 0
    assert (row["verdict"], row["is_few_data"]) == ("lower", False)
    # the interval of the same test: every delta with |z(delta)| <= z(0.975)
    variance = sum((d - mean) ** 2 for d in differences) / n
    half = Z_975 * math.sqrt(variance / (n - Z_975**2))
    assert row["ci_low"] == pytest.approx(mean - half, abs=2e-9)
    assert row["ci_high"] == pytest.approx(mean + half, abs=2e-9)
    assert row["ci_high"] < 0 and row["ci_note"] is None


def test_the_run_prints_the_verdict_answer_first(run_dir: Path) -> None:
    output = (run_dir.parent / "output.txt").read_text(encoding="utf-8").splitlines()
    rows = _comparisons(run_dir).values()
    real = sum(row["verdict"] != "inconclusive" for row in rows)
    assert (
        f"comparisons (first minus second): {real} of {len(rows)} differences hold after "
        "Benjamini-Hochberg (BH p <= 0.05, within each family, primary or exploratory)"
    ) in output
    (line,) = [line for line in output if line.startswith("  tft_vs_alld vs allc_vs_alld: ")]
    # TFT against ALLD cooperates far less than ALLC: a difference of both agents' cooperation
    # in percentage points, its interval, and the mart's verdict
    assert line.startswith("  tft_vs_alld vs allc_vs_alld: cooperation, both agents -")
    assert line.endswith("], BH p < 0.001: real difference, first lower")


# t(0.975, 2499), by bisection on Student's t distribution function (the regularized
# incomplete beta function), apart from the SQL's Cornish-Fisher expansion
T_975_2499 = 1.9609137248724755


def test_a_mean_of_thousands_of_replicates_gets_its_t_interval(run_dir: Path) -> None:
    rates = [rate for (c, _), rate in _cooperation_rates(run_dir).items() if c == "tft_vs_alld"]
    n = len(rates)
    mean = sum(rates) / n
    sd = math.sqrt(sum((rate - mean) ** 2 for rate in rates) / (n - 1))
    cursor = duckdb.execute(
        "select cooperation_rate_a_ci_low, cooperation_rate_a_ci_high, cooperation_rate_a_ci_note"
        " from read_parquet(?) where level = 'condition' and condition = 'tft_vs_alld'",
        [str(run_dir / PDMart.AGGREGATES)],
    )
    ((low, high, note),) = cursor.fetchall()
    assert n == REPLICATES
    assert low == pytest.approx(mean - T_975_2499 * sd / math.sqrt(n), abs=2e-9)
    assert high == pytest.approx(mean + T_975_2499 * sd / math.sqrt(n), abs=2e-9)
    assert note is None
