"""Configs that would hang, exhaust memory or silently mean something else are refused in one
line naming the file and the field, before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.plan import plan_matches

from tests.conftest import CONFIGS

BASE = (CONFIGS / "experiment.yaml").read_text(encoding="utf-8")
LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True)
)
CASES = [
    ("duplicate-key", BASE.replace("replicates: 2", "replicates: 2\nreplicates: 3"),
     "line 7: invalid YAML: duplicate key 'replicates'"),
    ("seed-true", BASE.replace("seed: 20240917", "seed: true"),
     "seed: Input should be a valid integer"),
    ("seed-of-5001-digits", BASE.replace("seed: 20240917", "seed: " + "9" * 5001),
     "invalid YAML: Exceeds the limit (4300 digits) for integer string conversion"),
    ("seed-beyond-64-bits", BASE.replace("seed: 20240917", f"seed: {2**63}"),
     "seed: Input should be less than 9223372036854775808"),
    ("missing-payoff-cell", BASE.replace("  DD: [1, 1]\n", ""),
     "payoffs: missing payoff cell DD: give all four"),
    ("huge-payoff", BASE.replace("CC: [3, 3]", "CC: [1.0e+308, 3]"),
     "payoffs.CC[0]: Input should be less than or equal to 1000000000000"),
    ("long-run-id", BASE.replace("run_id: demo", "run_id: " + "a" * 300),
     "run_id: String should have at most 100 characters"),
    ("a-billion-replicates", BASE.replace("replicates: 2", "replicates: 1000000000"),
     "replicates: Input should be less than or equal to 1000000"),
    ("billion-laughs", LAUGHS, "invalid YAML: expands to more than 100,000 values"),
    ("nesting-past-50", "x: " + "[" * 60 + "]" * 60 + "\n",
     "line 1: invalid YAML: nested deeper than 50 levels"),
    # libyaml's parser stops this one first
    ("nesting-5000-deep", "x: " + "[" * 5000 + "]" * 5000 + "\n",
     "line 1: invalid YAML: exceeded maximum nesting depth"),
    ("huge-file", BASE + "#" * (1 << 20), "the file is 1,05"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_hostile_or_mistaken_config_is_refused_in_one_line(
    project: Path, text: str, message: str
) -> None:
    path = project / "configs" / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_config_that_is_not_utf8_names_the_byte(project: Path) -> None:
    path = project / "configs" / "latin1.yaml"
    path.write_bytes(BASE.replace("# The demo", "# Café démo").encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1.yaml: not UTF-8 text \(byte \d+\)"):
        load_config(path)


def test_replicates_from_the_command_line_are_capped_by_max_matches(project: Path) -> None:
    config = load_config(project / "configs" / "experiment.yaml").config
    assert len(plan_matches(config, replicates=3)) == 21
    with pytest.raises(ConfigError, match=r"7,000,000,000 matches, more than max_matches"):
        plan_matches(config, replicates=1_000_000_000)
    raised = config.model_copy(update={"max_matches": 7_000})
    assert len(plan_matches(raised, replicates=1_000)) == 7_000


def test_a_cache_path_that_is_a_folder_or_not_sqlite_is_one_line(tmp_path: Path) -> None:
    from pdbench.providers.cache import ResponseCache

    (tmp_path / "folder").mkdir()
    text = tmp_path / "notes.db"
    text.write_text("not a database, just words of a user " * 100)
    for path, reason in ((tmp_path / "folder", "unable to open"), (text, "not a database")):
        with pytest.raises(ConfigError, match=rf"cache_path: cannot use .* cache: .*{reason}"):
            ResponseCache(path)
    assert text.read_text().startswith("not a database, just words")
