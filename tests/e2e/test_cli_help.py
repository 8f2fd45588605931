"""Every command's help: ``-h`` works like ``--help``, flags read as flags (never
``--dry-run <bool>``), and an "Examples" section shows commands that parse."""

from __future__ import annotations

import shlex

import pytest
import typer
from pdbench.cli import app
from pdbench.cli.help import EXAMPLES
from typer.testing import CliRunner

COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands)
GAME_COMMANDS = ("compare", "compare-runs", "leaderboard")
"""The games' own commands (``Game.commands``), whose examples live beside them."""


def _examples(command: str) -> list[str]:
    """The commands under "Examples:" in ``command``'s help, as registered."""
    (info,) = [c for c in app.registered_commands if c.name == command]
    head, *lines = (info.epilog or "").split("\n\n")
    assert head == "Examples:", info.epilog
    return [line.strip() for line in lines]


EVERY_EXAMPLE = [line for command in COMMANDS for line in _examples(command)]


def _help(*words: str) -> str:
    result = CliRunner().invoke(app, [*words], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    return result.output


def test_every_command_has_examples() -> None:
    assert set(EXAMPLES) == set(COMMANDS) - set(GAME_COMMANDS)
    for command in COMMANDS:
        assert _examples(command), command
        assert all(line.startswith(f"pdbench {command}") for line in _examples(command))


@pytest.mark.parametrize("command", COMMANDS)
def test_dash_h_is_help_with_plain_flags_and_examples(command: str) -> None:
    short = _help(command, "-h")
    assert short == _help(command, "--help")
    assert f"Usage: pdbench {command}" in short
    assert "<bool>" not in short
    assert "-h" in short
    examples = short.split("Examples:", 1)[1]
    assert f"pdbench {command} " in examples or f"pdbench {command}\n" in examples


def test_the_group_help_takes_dash_h() -> None:
    text = _help("-h")
    assert "Usage: pdbench" in text
    assert "<bool>" not in text


def test_run_help_lists_its_flags_without_a_value() -> None:
    lines = _help("run", "-h").splitlines()
    for flag in ("--dry-run", "--overwrite", "--no-aggregate", "--resume", "--no-cache"):
        (line,) = [line for line in lines if f"│ {flag} " in line]
        after = line.split(flag, 1)[1].lstrip()
        assert not after.startswith("<"), line


@pytest.mark.parametrize(
    "words",
    [shlex.split(line)[1:] for line in EVERY_EXAMPLE],
    ids=EVERY_EXAMPLE,
)
def test_every_example_parses(words: list[str]) -> None:
    group = typer.main.get_command(app)
    command = group.get_command(group.make_context("pdbench", [words[0]]), words[0])
    assert command is not None
    command.make_context(words[0], list(words[1:]))
