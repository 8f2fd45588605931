"""Shared fixtures: a copy of the repository's configs in a temporary project folder."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"


@pytest.fixture(scope="session", autouse=True)
def _user_cache(tmp_path_factory: pytest.TempPathFactory):
    """Caches a run keeps for the user (the compiled dbt project) go to a folder of the test
    session."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user_cache")))
        yield


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary working directory holding a copy of ``configs/``; the cwd during the test."""
    shutil.copytree(CONFIGS, tmp_path / "configs")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fake_aggregation(
    monkeypatch: pytest.MonkeyPatch, *, game: str, text: str
) -> list[tuple[Path, bool]]:
    """Replace the dbt aggregation by one that returns ``text`` (``{run_dir}`` is filled in);
    the list it returns fills with the (run_dir, unit_tests) of every call."""
    from pdbench.aggregate import AggregateSummary

    seen: list[tuple[Path, bool]] = []

    def fake_aggregate(
        run_dir: Path, *, unit_tests: bool, on_start=None, on_progress=None
    ) -> AggregateSummary:
        seen.append((run_dir, unit_tests))
        if on_start is not None:
            on_start(f"building the metrics of {run_dir} with dbt...")
        return AggregateSummary(run_dir=run_dir, game=game, text=text.format(run_dir=run_dir))

    monkeypatch.setattr("pdbench.aggregate.aggregate_run", fake_aggregate)
    return seen


def count_columns(run_dir: Path) -> list[tuple[str, str, str]]:
    """(mart file, column, DuckDB type) of every count (``n_*``, ``tokens_*``) in the run's
    marts. A DuckDB ``sum`` of integers is a HUGEINT, which Parquet stores as DOUBLE."""
    return [
        (mart.name, column, kind)
        for mart in sorted(run_dir.rglob("*.parquet"))
        for column, kind, *_ in duckdb.sql(f"describe select * from '{mart}'").fetchall()
        if re.fullmatch(r"n_\w+|tokens_\w+", column)
    ]


def edit(path: Path, old: str, new: str) -> None:
    """Replace ``old`` (which must be there) by ``new`` in ``path``."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def write_experiment(folder: Path, name: str = "small.yaml", **fields: object) -> Path:
    """A small experiment file in ``folder`` (next to agents/ and prompts/), updated by
    ``fields``; the path is relative to the working directory when it can be."""
    experiment = {
        "run_id": "small",
        "seed": 7,
        "replicates": 2,
        "store_prompts": True,
        "horizon": {"type": "fixed", "n": 12},
        "conditions": [
            {
                "name": "tft_vs_alld",
                "agent_a": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "ALLD"}},
            },
            {
                "name": "llm_vs_gtft",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {"persona": "tit_for_tat", "mock": {"strategy": "TFT"}},
                },
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "GTFT"}},
            },
            {
                "name": "llm_vs_llm",
                "agent_a": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {"persona": "wsls", "mock": {"strategy": "WSLS"}},
                },
                "agent_b": {
                    "ref": "agents/llm_default.yaml",
                    "overrides": {
                        "persona": "exploitative",
                        "output_format": "json",
                        "mock": {"strategy": "ALLD"},
                    },
                },
            },
        ],
    }
    experiment.update(fields)
    path = folder / name
    path.write_text(yaml.safe_dump(experiment, sort_keys=False), encoding="utf-8")
    cwd = Path.cwd()
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


def write_arena(
    folder: Path,
    name: str = "small_arena.yaml",
    *,
    players: int | list[dict] = 4,
    **fields: object,
) -> Path:
    """A small arena file in ``folder`` (next to agents/ and prompts/): dev mode, mock players
    ``p0``.. with no invalid replies and the filter off, updated by ``fields``."""
    if isinstance(players, int):
        players = [
            {
                "ref": "agents/arena_player.yaml",
                "overrides": {"name": f"p{i}", "mock": {"answer_skill": 0.9 - 0.2 * i}},
            }
            for i in range(players)
        ]
    arena = {
        "game": "arena",
        "run_id": "small-arena",
        "seed": 11,
        "dev": True,
        "questions_per_player": 3,
        "categories": ["math", "logic", "ethics"],
        "question_filter": {"kind": "none"},
        "players": players,
    }
    arena.update(fields)
    path = folder / name
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    cwd = Path.cwd()
    return path.relative_to(cwd) if path.is_relative_to(cwd) else path


# The files whose tests take longest (measured with `--durations`), handed out first: a
# process takes a whole file (`--dist loadfile`), so one of them started last would keep a
# core busy long after the other has finished. Files not named follow, most tests first.
LONGEST_FIRST = (
    "tests/integration/test_dbt_pd.py",
    "tests/ui/test_labels_browser.py",
    "tests/e2e/test_arena_deeper.py",
    "tests/e2e/test_resume_and_secrets.py",
    "tests/integration/test_strategy_identification.py",
    "tests/integration/test_dbt_arena.py",
    "tests/e2e/test_arena_cli.py",
    "tests/integration/test_axelrod_evolution.py",
    "tests/e2e/test_arena_diversity.py",
    "tests/e2e/test_arena_collusion.py",
    "tests/integration/test_real_model.py",
    "tests/ui/test_app.py",
    "tests/ui/test_every_page.py",
    "tests/e2e/test_arena_roles.py",
    "tests/unit/test_config_fuzz.py",
    "tests/integration/test_pd_large_comparison.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the files as :data:`LONGEST_FIRST` says (the order in which pytest-xdist hands
    them out, as `--no-loadscope-reorder` keeps it); a file's tests keep their order."""
    files = [item.nodeid.split("::")[0] for item in items]
    size = Counter(files)
    first = {name: i for i, name in reversed(list(enumerate(files)))}
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    order = sorted(
        range(len(items)),
        key=lambda i: (rank.get(files[i], len(rank)), -size[files[i]], first[files[i]], i),
    )
    items[:] = [items[i] for i in order]
