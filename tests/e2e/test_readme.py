"""The README and the documentation site are the manual: every command they show exists, with
the options they show.

Each ``uv run pdbench ...`` (or plain ``pdbench ...``) line of a shell block of README.md and
of every page of docs/ is parsed by the real command line (unknown commands, options or
missing arguments fail here), the files it names exist, the configs it names validate, and
every script a ``uv run python <file>`` line names is there. Lines continued with ``\\`` are
read as one.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import duckdb
import pytest
import typer
from pdbench.cli import app
from pdbench.pd.marts import PDMart
from typer.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
"""The README and every page of the documentation site."""
WORKED_EXAMPLE = REPO / "docs" / "uncertainty.md"
SHELL_BLOCK = re.compile(r"```(?:bash|sh)\n(.*?)```", re.S)


def _shell_lines(pages: list[Path] = PAGES) -> list[str]:
    lines: list[str] = []
    for page in pages:
        for block in SHELL_BLOCK.findall(page.read_text(encoding="utf-8")):
            for line in block.replace("\\\n", " ").splitlines():
                words = line.split("#", 1)[0].strip()
                if words:
                    lines.append(words)
    return lines


def _pdbench_commands(pages: list[Path] = PAGES) -> list[list[str]]:
    commands = []
    for line in _shell_lines(pages):
        if line.startswith("uv run pdbench "):
            commands.append(shlex.split(line)[3:])
        elif line.startswith("pdbench "):
            commands.append(shlex.split(line)[1:])
    return commands


COMMANDS = _pdbench_commands()


def test_the_readme_shows_the_two_commands() -> None:
    shown = {" ".join(words) for words in _pdbench_commands([README])}
    assert "run configs/experiment.yaml" in shown
    assert "uv run pytest -q" in _shell_lines([README])


def test_the_docs_show_every_command() -> None:
    registered = {c.name or c.callback.__name__ for c in app.registered_commands}
    assert {"validate", "run", "aggregate", "ui", "schema"} <= registered
    assert {words[0] for words in COMMANDS} == registered


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w) for w in COMMANDS])
def test_every_pdbench_command_of_the_readme_parses(words: list[str]) -> None:
    group = typer.main.get_command(app)
    command = group.get_command(group.make_context("pdbench", [words[0]]), words[0])
    assert command is not None, f"the docs show an unknown command: pdbench {words[0]}"
    # raises on an unknown option, a missing argument or a bad value
    command.make_context(words[0], list(words[1:]))


@pytest.mark.parametrize("config", sorted({w[1] for w in COMMANDS if w[0] in ("validate", "run")}))
def test_every_config_the_readme_names_validates(config: str, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(app, ["validate", config])
    assert result.exit_code == 0, result.output


def _script(line: str) -> str | None:
    """The script a ``uv run [--frozen] python <script> ...`` line runs, if any."""
    if not line.startswith("uv run ") or " -c " in line:
        return None
    words = [w for w in shlex.split(line)[2:] if w != "--frozen"]
    if len(words) < 2 or words[0] != "python" or words[1] in ("-c", "-m"):
        return None
    return words[1]


def test_every_script_the_readme_runs_exists() -> None:
    scripts = [s for s in map(_script, _shell_lines()) if s is not None]
    assert scripts, "the docs show no benchmark script"
    missing = [script for script in scripts if not (REPO / script).is_file()]
    assert missing == []


# The worked example of docs/uncertainty.md: its numbers are the demo's.

_EXAMPLE_ROW = re.compile(
    r"^\| (?P<replicates>\d+)(?: \(the demo\))? \| (?P<metric>[^|]+?) \| "
    r"(?P<mean>-?[\d.]+) (?:\[(?P<low>-?[\d.]+), (?P<high>-?[\d.]+)\]|\(no interval\)) \| "
    r"(?P<p>[\d.]+)[^|]* \| (?P<bh>[\d.]+) \|$",
    re.M,
)
_EXAMPLE_METRICS = {
    "cooperation of A": "cooperation_rate_a",
    "ALLD's payoff per round": "payoff_per_round_b",
}


def _decimals(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def test_the_worked_example_is_what_the_demo_gives(project: Path) -> None:
    rows = [m.groupdict() for m in _EXAMPLE_ROW.finditer(WORKED_EXAMPLE.read_text("utf-8"))]
    assert {(r["replicates"], r["metric"]) for r in rows} == {
        (n, metric) for n in ("2", "10") for metric in _EXAMPLE_METRICS
    }
    for replicates in ("2", "10"):
        run_dir = project / "runs" / replicates
        result = CliRunner().invoke(
            app,
            [
                "run",
                "configs/experiment.yaml",
                "--replicates",
                replicates,
                "--output-dir",
                str(run_dir),
            ],
        )
        assert result.exit_code == 0, result.output
        for row in (r for r in rows if r["replicates"] == replicates):
            (mart,) = duckdb.execute(
                "select mean_difference, ci_low, ci_high, p_value, p_value_bh from read_parquet(?)"
                " where condition_1 = 'cooperative_llm_vs_alld' and condition_2 = 'tft_vs_alld'"
                " and metric = ?",
                [str(run_dir / PDMart.COMPARISONS), _EXAMPLE_METRICS[row["metric"]]],
            ).fetchall()
            for text, value in zip(
                (row["mean"], row["low"], row["high"], row["p"], row["bh"]), mart, strict=True
            ):
                if text is None:  # "(no interval)": the mart has none either
                    assert value is None, (row, mart)
                    continue
                assert round(value, _decimals(text)) == float(text), (row, mart)


# The series example of docs/commands.md runs on a fresh clone: the runs it ranks are made by
# the `run` lines the page shows before it.

COMMANDS_PAGE = REPO / "docs" / "commands.md"


def test_the_leaderboard_example_runs_on_a_fresh_clone(project: Path) -> None:
    commands = _pdbench_commands([COMMANDS_PAGE])
    (leaderboard,) = [words for words in commands if words[0] == "leaderboard"]
    sources = [w for w in leaderboard[1:] if not w.startswith("--")][:-1]
    assert len(sources) >= 2, "a series needs two runs; the page must make them"
    made = {}
    for words in commands:
        if words[0] == "run" and "--output-dir" in words:
            made[words[words.index("--output-dir") + 1]] = words
    for source in sources:
        assert source in made, f"docs/commands.md shows no run writing {source}"
        result = CliRunner().invoke(app, made[source])
        assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, leaderboard)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"series of {len(sources)} tournaments")
