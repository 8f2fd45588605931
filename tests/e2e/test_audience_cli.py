"""``pdbench audience``: the command it runs on an arena run, the invite links it issues, and
a one-line error (exit 2) on anything else."""

from __future__ import annotations

import hashlib
import json
import shlex
from pathlib import Path

from pdbench import cli
from pdbench.arena.audience.invites import INVITES_FILE
from typer.testing import CliRunner

from tests.conftest import edit

runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def test_audience_needs_an_arena_run_with_answers(project: Path):
    missing = _invoke("audience", "nowhere", "--print-command")
    assert missing.exit_code == 2
    assert missing.stderr == "error: nowhere: no such run directory\n"

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


def test_invite_prints_one_link_per_voter_and_keeps_only_their_sha256(project: Path):
    edit(project / "configs/arena.yaml", "{kind: bottom_fraction, fraction: 0.33}", "{kind: none}")
    assert _invoke("run", "configs/arena.yaml", "--no-aggregate").exit_code == 0
    run_dir = "data/runs/arena-demo"
    served = _invoke("audience", run_dir, "--print-command")
    assert served.exit_code == 0
    assert served.stderr == (
        f"warning: no invite issued for {run_dir}: the page takes no vote until "
        f"`pdbench audience {run_dir} --invite N` prints invite links (it takes them at once)\n"
    )

    result = _invoke("audience", run_dir, "--invite", "3", "--port", "8777")
    assert result.exit_code == 0, result.stderr
    links = result.stdout.splitlines()
    assert len(links) == 3
    tokens = [link.removeprefix("http://127.0.0.1:8777/?invite=") for link in links]
    assert all(len(token) == 22 for token in tokens)
    assert len(set(tokens)) == 3
    invites = project / run_dir / INVITES_FILE
    recorded = [json.loads(line)["invite_sha256"] for line in invites.read_text().splitlines()]
    assert recorded == [hashlib.sha256(token.encode()).hexdigest() for token in tokens]
    assert not any(token in invites.read_text() for token in tokens)
    assert "3 invite links for data/runs/arena-demo, one per voter" in result.stderr

    more = _invoke("audience", run_dir, "--invite", "1", "--link-base", "https://vote.example.org/")
    assert more.stdout.startswith("https://vote.example.org/?invite=")
    assert len(invites.read_text().splitlines()) == 4
    assert _invoke("audience", run_dir, "--print-command").stderr == ""

    # a run directory holding invites is still one `run --overwrite` replaces
    again = _invoke("run", "configs/arena.yaml", "--no-aggregate", "--overwrite")
    assert again.exit_code == 0, again.stderr
    assert not invites.exists()


def test_invites_for_anything_but_an_arena_run_are_refused(project: Path):
    assert _invoke("run", "configs/experiment.yaml", "--no-aggregate").exit_code == 0
    pd = _invoke("audience", "data/runs/demo", "--invite", "2")
    assert pd.exit_code == 2 and pd.stdout == ""
    assert not (project / "data/runs/demo" / INVITES_FILE).exists()
    assert _invoke("audience", "data/runs/demo", "--invite", "0").exit_code == 2
