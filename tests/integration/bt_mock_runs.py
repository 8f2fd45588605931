"""Tournaments of the Bradley-Terry mock (:mod:`pdbench.arena.mock_verdicts`) played through
the real engine, and their marts.

:func:`play_bt_tournament` writes an arena file of mock players with planted strengths and
preferences (``judging: pairwise``, every pair of answers in both orders, with the self and
name arms), plays it with :func:`pdbench.arena.runner.run_arena` and builds the pairwise
marts with dbt; :func:`read_marts` reads them back as rows.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import yaml
from pdbench.arena.runner import run_arena
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.games import load_config

REPO = Path(__file__).resolve().parents[2]
PAIRWISE_MARTS = (
    "bradley_terry",
    "pairwise_position",
    "pairwise_self_bias",
    "pairwise_name_bias",
)


def arena_file(
    folder: Path, players: dict[str, dict], *, seed: int, questions: int, bootstrap: int
) -> Path:
    """An arena file in ``folder`` (beside a copy of the configs' agents and prompts) whose
    players carry the mock traits ``players`` maps their names to."""
    for sub in ("agents", "prompts"):
        if not (folder / sub).exists():
            shutil.copytree(REPO / "configs" / sub, folder / sub)
    arena = {
        "game": "arena",
        "run_id": f"bt-mock-{seed}",
        "seed": seed,
        "dev": questions <= 10,
        "questions_per_player": questions,
        "categories": ["math", "logic", "ethics", "science"],
        "question_filter": {"kind": "none"},
        "rationales": None,
        "bootstrap": {"n": bootstrap},
        "anomaly": {"permutations": 10},
        "store_prompts": False,
        "judging": "pairwise",
        "pairing": {
            "scheme": "all",
            "position_swap": True,
            "self_judging": True,
            "reveal_names": True,
            "prompt": "prompts/arena/pairwise.md",
        },
        "players": [
            {"ref": "agents/arena_player.yaml", "overrides": {"name": name, "mock": traits}}
            for name, traits in players.items()
        ],
    }
    path = folder / f"{arena['run_id']}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    return path


def play_bt_tournament(
    folder: Path,
    players: dict[str, dict],
    *,
    seed: int,
    questions: int = 10,
    bootstrap: int = 100,
) -> Path:
    """The run directory of one tournament of ``players``, with the pairwise marts built."""
    path = arena_file(folder, players, seed=seed, questions=questions, bootstrap=bootstrap)
    run_dir = folder / "runs" / path.stem
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    select = " ".join(f"+arena_{name}" for name in PAIRWISE_MARTS)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select=select))
    return run_dir


def read_marts(run_dir: Path) -> dict[str, list[dict]]:
    """Every pairwise mart of ``run_dir`` as a list of rows (column -> value)."""
    tables = {}
    for name in PAIRWISE_MARTS:
        relation = duckdb.sql(f"select * from '{run_dir / name}.parquet'")
        tables[name] = [dict(zip(relation.columns, r, strict=True)) for r in relation.fetchall()]
    return tables
