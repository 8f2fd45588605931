"""Tournaments of ``configs/arena_joint.yaml`` (the Bradley-Terry mock with preferences planted
in log-odds, the form the joint model of pairwise judging fits) played through the real
engine, and the joint model's truths read from the config's planted traits.

:func:`planted_truths` gives each effect of ``joint_model.parquet`` (judging pairwise) the value
the mock planted, in the mart's Elo points (400 / ln 10 per unit of log-odds):

- a strength: the planted Elo minus the answerers' mean;
- a judge's position bias: its ``first_log_odds``; its self bias: its ``self_log_odds``;
- a player's name pull: the ``name_log_odds`` of the judges that favour it, minus the mean pull
  over the answerers (every judge must favour the same player by the same amount: the model's
  name term is one pull per player, pooled over the judges);
- length: the judges' ``length_preference`` (one value for every judge, for the same reason).
"""

from __future__ import annotations

import math
from pathlib import Path

import yaml
from pdbench.arena.runner import run_arena
from pdbench.dbt_build.invoke import DbtRequest, invoke_dbt
from pdbench.games import load_config

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "configs" / "arena_joint.yaml"
ELO_PER_LOG_ODDS = 400 / math.log(10)


def planted_truths(config: Path = CONFIG) -> dict[tuple[str, str], float]:
    """(effect_kind, effect_name) -> the planted value in Elo points."""
    players = [entry["overrides"] for entry in yaml.safe_load(config.read_text())["players"]]
    answerers = {p["name"]: p["mock"] for p in players if p.get("role") != "judge"}
    judges = {p["name"]: p["mock"] for p in players if p.get("role") != "answerer"}
    favoured = {(mock.get("favours"), mock.get("name_log_odds", 0.0)) for mock in judges.values()}
    lengths = {mock.get("length_preference", 0.0) for mock in judges.values()}
    assert len(favoured) == 1 and len(lengths) == 1, "one name pull and one length effect"
    ((favourite, pull),), (length,) = favoured, lengths
    mean_strength = sum(mock["strength"] for mock in answerers.values()) / len(answerers)
    truth = {
        ("strength", name): mock["strength"] - mean_strength for name, mock in answerers.items()
    }
    for name, mock in judges.items():
        truth["position", name] = mock.get("first_log_odds", 0.0) * ELO_PER_LOG_ODDS
        if name in answerers:
            truth["self", name] = mock.get("self_log_odds", 0.0) * ELO_PER_LOG_ODDS
    for name in answerers:
        own = pull if name == favourite else 0.0
        truth["name", name] = (own - pull / len(answerers)) * ELO_PER_LOG_ODDS
    truth["style", "answer_length"] = length * ELO_PER_LOG_ODDS
    return truth


def play_joint(folder: Path, *, seed: int, questions: int, bootstrap: int) -> Path:
    """The run directory of ``configs/arena_joint.yaml`` played with ``seed``, ``questions``
    per writer and ``bootstrap`` replicates, its joint model built."""
    for sub in ("agents", "prompts"):
        if not (folder / sub).exists():
            (folder / sub).symlink_to(REPO / "configs" / sub)
    arena = yaml.safe_load(CONFIG.read_text())
    arena |= {"run_id": f"joint-{seed}", "seed": seed, "questions_per_player": questions}
    arena["dev"] = questions <= 10  # dev mode holds 3 to 10 questions per player
    arena["bootstrap"] = {"n": bootstrap}
    path = folder / f"joint-{seed}.yaml"
    path.write_text(yaml.safe_dump(arena, sort_keys=False), encoding="utf-8")
    run_dir = folder / "runs" / path.stem
    run_arena(load_config(path), output_dir=run_dir, use_cache=False)
    invoke_dbt(DbtRequest("run", run_dir=run_dir, select="+arena_joint_model"))
    return run_dir
