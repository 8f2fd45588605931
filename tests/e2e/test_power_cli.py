"""``pdbench power`` as a person types it: the replicates a PD study needs, from the config's
own agents played or from a pilot run, the cost of the run at that size, and one line for
every kind of bad input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import edit

CONFIG = "configs/power_urnd.yaml"
runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, ["power", *args])


def _needed(stdout: str) -> int:
    (needed,) = re.findall(r"^replicates needed: (\d+)$", stdout, flags=re.MULTILINE)
    return int(needed)


def test_power_plans_the_urnd_study_and_prices_it(project: Path) -> None:
    # SD of the paired differences sqrt(0.0245) = 0.1565: the normal approximation asks
    # ((1.960 + 0.842) x 1.565)^2 = 19.2 replicates for 0.10; a pool of 300 and 200
    # simulations leave a few replicates of error either way
    result = _invoke(CONFIG, "--effect", "0.10", "--pool", "300", "--simulations", "200")
    assert result.exit_code == 0, result.output
    needed = _needed(result.stdout)
    assert 15 <= needed <= 27
    assert "Benjamini-Hochberg within the primary family (1 test)" in result.stdout
    assert f"total rounds: {needed * 2 * 20:,} ({needed * 2} matches x 20 rounds)" in result.stdout
    assert "provider calls: 0 (one per LLM move)" in result.stdout
    curve = re.findall(r"^  (\d+) replicates: power ([\d.]+)% \(Monte-Carlo SE ([\d.]+) pp\)$",
                       result.stdout, flags=re.MULTILINE)  # fmt: skip
    assert len(curve) == 5 and str(needed) in [n for n, _, _ in curve]
    powers = [float(p) for _, p, _ in curve]
    assert powers == sorted(powers)  # nested draws: more replicates never find less
    assert "playing a pool of 300 replicates" in result.stderr
    assert not Path("data").exists()  # the pool lives in a temporary directory


def test_power_reads_a_pilot_run(project: Path) -> None:
    played = runner.invoke(cli.app, ["run", CONFIG, "--replicates", "40", "--output-dir", "pilot"])
    assert played.exit_code == 0, played.output
    result = _invoke(CONFIG, "--effect", "0.10", "--pilot", "pilot", "--simulations", "200")
    assert result.exit_code == 0, result.output
    assert "the 40 replicates of the pilot run pilot" in result.stdout
    # the plan follows the pilot's own SD s: by hand ((1.960 + 0.842) s / 0.10)^2, which the
    # sign-flip test on a grid (conservative) exceeds by up to a quarter, give or take the
    # Monte-Carlo error of 200 simulations (2 replicates)
    (sd,) = re.findall(r"SD of the paired differences ([\d.]+) pp", result.stdout)
    by_hand = (2.8016 * float(sd) / 100 / 0.10) ** 2
    assert by_hand - 2 <= _needed(result.stdout) <= 1.25 * by_hand + 2
    assert "playing a pool" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--metric", "cooperation_rate_z", "--effect", "0.1"],
            f"error: {CONFIG}: --metric: unknown metric 'cooperation_rate_z' (closest: "
            "cooperation_rate_b,",
        ),
        (["--effect", "0"], f"error: {CONFIG}: --effect: the effect must be above 0"),
        (["--effect", "-0.1"], f"error: {CONFIG}: --effect: the effect must be above 0"),
        (["--effect", "0.1", "--power", "1"], f"error: {CONFIG}: --power: must be between 0"),
        (["--effect", "0.1", "--alpha", "0"], f"error: {CONFIG}: --alpha: must be between 0"),
        (["--effect", "0.1", "--pilot", "missing"], "error: missing: no such run directory"),
    ],
)
def test_bad_input_is_one_line(project: Path, args: list[str], message: str) -> None:
    result = _invoke(CONFIG, *args)
    assert result.exit_code == 2
    assert result.stderr.startswith(message), result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_a_config_without_a_compared_pair(project: Path) -> None:
    text = Path(CONFIG).read_text(encoding="utf-8")
    single = text[: text.index("  - name: urnd50_vs_alld")]
    Path(CONFIG).write_text(single, encoding="utf-8")
    result = _invoke(CONFIG, "--effect", "0.1")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {CONFIG}: conditions: no compared pair: the config has 1 condition; power "
        "plans a paired difference between two conditions\n"
    )


def test_an_agent_on_a_paid_provider_needs_a_pilot(project: Path) -> None:
    edit(
        Path(CONFIG),
        "agent_a: {type: policy, policy: URND, coop_prob: 0.6}",
        "agent_a: {type: llm, provider: openai, model: gpt-4o-mini}",
    )
    result = _invoke(CONFIG, "--effect", "0.1")
    assert result.exit_code == 2
    assert "an agent plays on a paid provider (urnd60_vs_alld: openai/gpt-4o-mini)" in (
        result.stderr
    )
    assert "--pilot RUN_DIR" in result.stderr


def test_power_of_an_arena_pilot(project: Path) -> None:
    played = runner.invoke(cli.app, ["run", "configs/arena.yaml", "--output-dir", "arena"])
    assert played.exit_code == 0, played.output
    result = _invoke("configs/arena.yaml", "--effect", "1.0", "--pilot", "arena",
                     "--simulations", "200")  # fmt: skip
    assert result.exit_code == 0, result.output
    (needed,) = re.findall(r"^common questions needed: (\d+)$", result.stdout, re.MULTILINE)
    (per_player,) = re.findall(r"^questions per player needed: (\d+) ", result.stdout, re.M)
    assert int(needed) >= 6 and int(per_player) >= 1
    assert "analysis: as leaderboard.parquet (200 bootstrap replicates" in result.stdout
    assert "found when the two intervals do not overlap" in result.stdout
    assert "estimated cost: $0.0000" in result.stdout
    elo = _invoke("configs/arena.yaml", "--effect", "50", "--metric", "elo", "--pilot", "arena")
    assert elo.exit_code == 2
    assert elo.stderr.startswith("error: configs/arena.yaml: --metric: --metric elo plans the ")
    assert "(judging: absolute)" in elo.stderr
    assert len(elo.stderr.strip().splitlines()) == 1 and "Traceback" not in elo.output


def test_power_of_a_pairwise_arena_in_elo(project: Path) -> None:
    # four players, every pair judged by the other two in both orders: 4 scored verdicts per
    # pair and question, 12 questions at 3 per player; 200 Elo points apart take a handful
    result = _invoke("configs/arena_pairwise.yaml", "--effect", "200", "--metric", "elo",
                     "--simulations", "100")  # fmt: skip
    assert result.exit_code == 0, result.output
    (needed,) = re.findall(r"^questions needed: (\d+)$", result.stdout, re.MULTILINE)
    (per_player,) = re.findall(r"^questions per player needed: (\d+) ", result.stdout, re.M)
    assert 4 <= int(needed) <= 20
    assert int(per_player) == -(-int(needed) // 4)
    assert "4.0 per pair" in result.stdout
    assert "found when the two intervals do not overlap" in result.stdout
    assert "estimated cost: $0.0000" in result.stdout
    wrong = _invoke("configs/arena_pairwise.yaml", "--effect", "200", "--metric", "elo",
                    "--alpha", "0.01")  # fmt: skip
    assert wrong.exit_code == 2
    assert wrong.stderr.startswith("error: configs/arena_pairwise.yaml: --alpha: ")


def test_conditions_that_share_no_agent_are_no_compared_pair(project: Path) -> None:
    # five conditions, no agent twice on one side: the automatic choice compares none
    policies = ["TFT", "ALLC", "WSLS", "GRIM", "ALLD"]
    conditions = "\n".join(
        f"  - {{name: c{i}, agent_a: {{type: policy, policy: {a}}}, "
        f"agent_b: {{type: policy, policy: {policies[(i + 2) % 5]}}}}}"
        for i, a in enumerate(policies)
    )
    config = Path("configs/five.yaml")
    config.write_text(
        f"game: pd\nrun_id: five\nseed: 1\nhorizon: {{type: fixed, n: 5}}\nconditions:\n"
        f"{conditions}\n",
        encoding="utf-8",
    )
    result = _invoke(str(config), "--effect", "0.1", "--pool", "10")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1].startswith(
        "error: configs/five.yaml: comparisons: no compared pair in 10 replicates played by "
        "the config's own agents"
    )
