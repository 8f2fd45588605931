"""``pdbench audience``: the command it runs on an arena run, and a one-line error (exit 2)
on anything else."""

from __future__ import annotations

import shlex
from pathlib import Path

from pdbench import cli
from typer.testing import CliRunner

from tests.conftest import edit

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def test_audience_needs_an_arena_run_with_answers(project: Path):
    missing = _invoke("audience", "nowhere", "--print-command")
    assert missing.exit_code == 2
    assert missing.stderr == "error: nowhere: not a run directory (no run_manifest.json)\n"

    assert _invoke("run", "configs/experiment.yaml", "--no-aggregate").exit_code == 0
    pd = _invoke("audience", "data/runs/demo", "--print-command")
    assert pd.exit_code == 2
    assert pd.stderr == (
        "error: data/runs/demo: a pd run; the audience scores the answers of an arena run\n"
    )


def test_audience_prints_the_streamlit_command_of_the_page(project: Path):
    edit(project / "configs/arena.yaml", "{kind: bottom_fraction, fraction: 0.33}", "{kind: none}")
    assert _invoke("run", "configs/arena.yaml", "--no-aggregate").exit_code == 0
    result = _invoke("audience", "data/runs/arena-demo", "--port", "8777", "--print-command")
    assert result.exit_code == 0, result.stderr
    words = shlex.split(result.stdout)
    assert words[1:3] == ["run", str(cli.AUDIENCE_APP)]
    server_words, app_words = words[3 : words.index("--")], words[words.index("--") + 1 :]
    server = dict(zip(server_words[::2], server_words[1::2], strict=True))
    assert server["--server.port"] == "8777"
    assert server["--server.address"] == "127.0.0.1"
    assert server["--server.headless"] == "true"
    assert app_words == ["--run-dir", str(Path("data/runs/arena-demo").resolve())]
    assert cli.AUDIENCE_APP.is_file()
