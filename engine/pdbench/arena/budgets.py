"""Compute budgets: one player entry expanded into variants that differ by budget.

``budgets`` on a player lists variants, each a ``label`` and the player settings it changes
(``max_tokens`` per phase, ``reasoning_effort``, ``thinking``, ``model``, any other player
key). Each variant becomes a player of its own, named ``<name>-<label>``, with ``family``
(the entry's name) and ``budget`` (the label) recorded, so that dbt can draw each family's
score against what it spent (``budget_curves.parquet``). The expansion happens before the
players are validated, so a variant is checked like any player, and a config snapshot (which
holds the variants, not ``budgets``) validates to the same players.
"""

from __future__ import annotations

import copy
import re
from typing import Any

__all__ = ["expand_budgets"]

_LABEL = re.compile(r"[A-Za-z0-9_-]+")


def expand_budgets(players: list[Any]) -> list[Any]:
    """``players`` with every entry that has ``budgets`` replaced by its variants, in order."""
    expanded: list[Any] = []
    for index, player in enumerate(players):
        if not isinstance(player, dict) or "budgets" not in player:
            expanded.append(player)
            continue
        expanded.extend(_variants(player, where=f"players[{index}]"))
    return expanded


def _variants(player: dict[str, Any], *, where: str) -> list[dict[str, Any]]:
    base = {key: value for key, value in player.items() if key != "budgets"}
    budgets = player["budgets"]
    name = base.get("name")
    if not isinstance(name, str):
        raise ValueError(f"{where}.name: a player with budgets needs a name")
    if not isinstance(budgets, list) or not budgets:
        raise ValueError(f"{where}.budgets: a non-empty list of variants, each with a label")
    variants = []
    for position, budget in enumerate(budgets):
        at = f"{where}.budgets[{position}]"
        if not isinstance(budget, dict):
            raise ValueError(f"{at}: a mapping with a label and the settings it changes")
        label = budget.get("label")
        if not isinstance(label, str) or not _LABEL.fullmatch(label):
            raise ValueError(f"{at}.label: required, letters, digits, '_' or '-'")
        changes = {key: value for key, value in budget.items() if key != "label"}
        for key in ("name", "family", "budget", "budgets"):
            if key in changes:
                raise ValueError(f"{at}.{key}: set by the expansion, not by a variant")
        variant = _merged(base, changes)
        variant.update(name=f"{name}-{label}", family=name, budget=label)
        variants.append(variant)
    return variants


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` laid over it, mappings merged key by key."""
    merged = copy.deepcopy(base)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
