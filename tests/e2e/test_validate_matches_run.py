"""``validate`` and ``run`` make the same checks: a config validate passes is one run can
start, and a config it refuses is refused by run with the same line, naming the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import CONFIGS
from tests.e2e.test_resume_and_secrets import pdbench


def _without_prompts_block(text: str) -> str:
    start = text.index("prompts:\n")
    end = text.index("self_assess.md\n", start) + len("self_assess.md\n")
    return text[:start] + text[end:]


@pytest.mark.parametrize("game", ["arena", "pd"])
def test_a_config_kept_outside_configs_is_refused_by_both_naming_the_field(
    tmp_path: Path, game: str
):
    outside = tmp_path / "elsewhere"
    shutil.copytree(CONFIGS / "agents", outside / "agents")  # the agents, not the prompts
    if game == "arena":
        config = outside / "arena.yaml"
        config.write_text(_without_prompts_block((CONFIGS / "arena.yaml").read_text()))
        field = "arena.yaml: prompts.generate: prompt file not found: prompts/arena/generate.md"
    else:
        config = outside / "experiment.yaml"
        shutil.copyfile(CONFIGS / "experiment.yaml", config)
        field = "system_prompt: prompt file not found: prompts/pd_system.md"
    lines = {}
    for command in (("validate",), ("run", "--dry-run"), ("run",)):
        result = pdbench(*command[:1], str(config), *command[1:], cwd=tmp_path)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        (lines[command],) = result.stderr.splitlines()
        assert field in lines[command]
    assert len(set(lines.values())) == 1
    assert not (tmp_path / "data").exists()
