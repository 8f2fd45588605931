"""Property: whatever a config or prompt file holds, `pdbench validate` ends with exit 0, or
with exit 2 and one line `error: ...`, writes nothing, and a config it accepts renders its
prompts without an error (a run never meets what validation let through).

Hypothesis mutates a small valid experiment (an LLM agent by ref with a persona, a policy)
and its prompt files: values of every type and size at any key, deleted and unknown keys,
raw YAML edits, template text with every kind of placeholder, and bytes that are not UTF-8.
The examples are derandomized: the suite tries the same 3,000 every time;
PDBENCH_FUZZ_EXAMPLES=10000 searches further (about 75 s).
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pdbench.cli import app
from pdbench.games import load_config
from pdbench.pd.actions import Turn
from pdbench.pd.agents.prompts import PromptTemplates, render_round, render_system
from typer.main import get_command

from tests.conftest import CONFIGS

COMMAND = get_command(app)
BASE: dict[str, Any] = {
    "run_id": "fuzz",
    "seed": 1,
    "replicates": 1,
    "store_prompts": True,
    "payoffs": {"CC": [3, 3], "CD": [0, 5], "DC": [5, 0], "DD": [1, 1]},
    "horizon": {"type": "fixed", "n": 3},
    "conditions": [
        {
            "name": "llm_vs_tft",
            "agent_a": {
                "ref": "agents/llm_default.yaml",
                "overrides": {"persona": "cooperative", "mock": {"strategy": "GRIM"}},
            },
            "agent_b": {"type": "policy", "policy": "TFT"},
        }
    ],
}
TEMPLATES = ("prompts/pd_system.md", "prompts/pd_round.md", "prompts/personas/cooperative.md")


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of ``node`` (mappings and list items)."""
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _paths(value, (*prefix, i))
    return found


PATHS = _paths(BASE)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(
        ["", "TFT", "llm", "mock", "fixed", "geometric", "../../etc/passwd", "a" * 400]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
PLACEHOLDERS = st.sampled_from(
    [
        "{persona}", "{payoff_table}", "{output_instruction}", "{round_index}", "{history}",
        "{totals}", "{persona:d}", "{persona!z}", "{persona!r}", "{persona:>9999999999}",
        "{0}", "{}", "{persona.x}", "{persona[0]}", "{{", "}}", "{", "}", "{unknown}", "\x00",
    ]
)  # fmt: skip
TEMPLATE_TEXT = st.lists(st.one_of(PLACEHOLDERS, st.text(max_size=10)), max_size=8).map("".join)


@st.composite
def mutations(draw: st.DrawFn) -> tuple[str, dict[str, bytes]]:
    """A config text and the template files that replace the shipped ones."""
    config = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.sampled_from(["set", "set", "delete", "unknown"]))
        path = draw(st.sampled_from(_paths(config) or [("run_id",)]))
        parent: Any = config
        for part in path[:-1]:
            parent = parent[part]
        if kind == "set":
            parent[path[-1]] = draw(VALUES)
        elif kind == "delete" and isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif kind == "unknown" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=8))] = draw(SCALARS)
    try:
        text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    except yaml.YAMLError:
        text = yaml.safe_dump(BASE, sort_keys=False)
    if draw(st.booleans()):  # raw edits: syntax, duplicate keys, aliases, tabs
        at = draw(st.integers(min_value=0, max_value=len(text)))
        insert = draw(
            st.sampled_from(["\n- ", ": :", "\t", "&a ", "*a", "[", "{", "\nseed: 2\n", "'"])
        )
        text = text[:at] + insert + text[at:]
    files: dict[str, bytes] = {}
    for name in TEMPLATES:
        choice = draw(st.sampled_from(["keep", "keep", "text", "bytes"]))
        if choice == "text":
            files[name] = draw(TEMPLATE_TEXT).encode("utf-8", "surrogatepass")
        elif choice == "bytes":
            files[name] = draw(st.binary(max_size=40))
    return text, files


def _listing(root: Path) -> list[str]:
    """What the project folder and its configs/ hold (a run directory, a cache or a stray
    file would show here)."""
    return sorted(os.listdir(root)) + sorted(os.listdir(root / "configs"))


@pytest.fixture(scope="module")
def workspace() -> Iterator[Path]:
    """A project folder with a copy of configs/, shared by every example (each restores the
    template files it replaced); the working directory while they run."""
    root = Path(tempfile.mkdtemp(prefix="pdbench-fuzz-"))
    shutil.copytree(CONFIGS, root / "configs")
    cwd = Path.cwd()
    os.chdir(root)  # anything written relative to the working directory lands here
    try:
        yield root
    finally:
        os.chdir(cwd)
        shutil.rmtree(root)


@settings(
    max_examples=int(os.environ.get("PDBENCH_FUZZ_EXAMPLES", "3000")),
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=mutations())
def test_every_config_is_accepted_or_refused_in_one_line(
    workspace: Path, case: tuple[str, dict[str, bytes]]
):
    text, files = case
    originals = {name: (workspace / "configs" / name).read_bytes() for name in files}
    config = workspace / "configs" / "fuzz.yaml"
    try:
        for name, content in files.items():
            (workspace / "configs" / name).write_bytes(content)
        config.write_text(text, encoding="utf-8", errors="surrogatepass")
        before = _listing(workspace)
        result = CliRunner().invoke(COMMAND, ["validate", str(config)])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            f"{type(result.exception).__name__}: {result.exception}"
        )
        assert _listing(workspace) == before
        errors = [line for line in result.stderr.splitlines() if not line.startswith("warning: ")]
        if result.exit_code == 0:
            assert errors == []
            _render_every_prompt(config)
        else:
            assert result.exit_code == 2, result.stderr
            assert len(errors) == 1 and errors[0].startswith("error: "), result.stderr
    finally:
        for name, content in originals.items():
            (workspace / "configs" / name).write_bytes(content)


def _render_every_prompt(path: Path) -> None:
    loaded = load_config(path)
    for condition in loaded.config.conditions:
        for side in ("agent_a", "agent_b"):
            agent = getattr(condition, side)
            if agent.type != "llm":
                continue
            templates = PromptTemplates.from_files(
                system_path=loaded.root / agent.system_prompt,
                round_path=loaded.root / agent.round_prompt,
                persona_path=agent.persona_path(loaded.root),
            )
            matrix = loaded.config.payoffs.to_matrix()
            render_system(templates, matrix=matrix, side=side, output_format=agent.output_format)
            render_round(
                templates,
                round_index=2,
                turns=[Turn("C", "D", 0.0, 5.0)],
                history_window=agent.history_window,
                include_totals=agent.include_totals,
                own_total=0.0,
                opponent_total=5.0,
                output_format=agent.output_format,
            )
