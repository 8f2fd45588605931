"""``pdbench run`` off a terminal (a log, CI) prints its progress as it goes: a line every few
matches with the elapsed time, the counts and the calls so far, not nothing until the end."""

import re
from pathlib import Path

from pdbench import cli
from typer.testing import CliRunner

LINE = re.compile(
    r"^matches: (\d+)/14 \(\d+%\), elapsed \d+:\d\d:\d\d, (ETA \d+:\d\d:\d\d|done), "
    r"(\d+) calls, [\d,]+ tokens, "
)


def test_a_pd_run_off_a_terminal_prints_a_line_every_few_matches(project: Path):
    result = CliRunner().invoke(cli.app, ["run", "configs/experiment.yaml", "--no-aggregate"])
    assert result.exit_code == 0, result.stderr
    lines = [m for line in result.stderr.splitlines() if (m := LINE.match(line))]
    done = [int(m[1]) for m in lines]
    # 7 conditions x 2 replicates: a line for every match (a tenth of 14 is one), the last
    # when all are played
    assert done == list(range(1, 15))
    assert lines[-1][2] == "done"
    calls = [int(m[3]) for m in lines]
    assert calls == sorted(calls) and calls[-1] > 0  # LLM agents of the mock provider play
