"""Fontana et al.'s game histories ("Nicer than humans", ICWSM 2025): ``pdbench import
fontana <model>_URNDx_ws10...``.

A source is one run folder of their repository, e.g. ``gpt35t_URNDx_ws10``::

    gpt35t_URNDx_ws10/
      URND00/game_histories/game_history_1.json ... game_history_100.json
      ...
      URND10/game_histories/...

``URND<aa>`` holds the games against URND(alpha), a random opponent that cooperates with
probability alpha = aa / 10. A history is ``{"A": [...], "B": [...]}``, one entry per round,
``1`` for cooperate and ``0`` for defect; ``A`` is the LLM. Every alpha becomes a condition
``<model>_vs_urnd<alpha>`` (agent A the model, an LLM; agent B ``URND(<alpha>)``, a policy),
every game a replicate (``game_history_<k>`` is replicate k - 1). The payoffs are Axelrod's
3/0/5/1, as in their games.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pdbench.imports.base import (
    ImportInputError,
    ImportOptions,
    ImportSummary,
    SourceProblem,
    json_value,
    read_source,
)
from pdbench.imports.pd_run import ImportedMatch, import_pd_run
from pdbench.imports.staging import source_files
from pdbench.pd.config import PayoffsConfig
from pdbench.storage.schema import ImportRecord

__all__ = ["run"]

_RUN_FOLDER = re.compile(r"^(?P<model>.+?)_URNDx(?:_.*)?$")
_ALPHA_FOLDER = re.compile(r"^URND(?P<tenths>\d{2})$")
_GAME_FILE = re.compile(r"^game_history_(?P<k>\d+)\.json$")
_ACTIONS = {1: "C", 0: "D"}


def run(sources: list[Path], output_dir: Path, options: ImportOptions) -> ImportSummary:
    """Import every game of every run folder in ``sources`` into ``output_dir``."""
    games = [game for folder in sources for game in _games(folder)]
    files = source_files([path for _, _, path in games])
    record = ImportRecord(format="fontana", sources=files)
    models = sorted({model for model, _, _ in games})
    return import_pd_run(
        (_match(model, alpha, path) for model, alpha, path in games),
        output_dir,
        options,
        record=record,
        payoffs=PayoffsConfig(),
        said=lambda counts: (
            f"imported {counts['matches']} games ({counts['rounds']} rounds) of "
            f"{', '.join(models)} vs URND(alpha) from {len(sources)} folder(s) -> {output_dir}"
        ),
    )


def _games(folder: Path) -> list[tuple[str, float, Path]]:
    """``(model, alpha, history file)`` of every game in a run folder, alpha by alpha, game
    by game in their number's order."""
    if not folder.is_dir():
        raise ImportInputError("not a folder (give a <model>_URNDx_ws10 folder)", at=_at(folder))
    named = _RUN_FOLDER.match(folder.resolve().name)
    if named is None:
        raise ImportInputError(
            "the folder's name is not <model>_URNDx_<...> (e.g. gpt35t_URNDx_ws10)",
            at=_at(folder),
        )
    games = [
        (named["model"], alpha, path)
        for alpha, alpha_folder in _alpha_folders(folder)
        for path in _history_files(alpha_folder)
    ]
    if not games:
        raise ImportInputError(
            "no game histories (URND<aa>/game_histories/game_history_<k>.json)", at=_at(folder)
        )
    return games


def _alpha_folders(folder: Path) -> Iterator[tuple[float, Path]]:
    for child in sorted(folder.iterdir()):
        found = _ALPHA_FOLDER.match(child.name)
        if found and child.is_dir():
            yield int(found["tenths"]) / 10, child


def _history_files(alpha_folder: Path) -> list[Path]:
    histories = alpha_folder / "game_histories"
    if not histories.is_dir():
        return []
    numbered = [
        (int(found["k"]), path)
        for path in histories.iterdir()
        if (found := _GAME_FILE.match(path.name))
    ]
    return [path for _, path in sorted(numbered)]


def _match(model: str, alpha: float, path: Path) -> ImportedMatch:
    history = _read_history(path)
    return ImportedMatch(
        condition=f"{model}_vs_urnd{alpha:.1f}",
        names=(model, f"URND({alpha:.1f})"),
        kinds=("llm", "policy"),
        actions_a=_actions(history, "A", path),
        actions_b=_actions(history, "B", path),
        valid=(None, True),
    )


def _read_history(path: Path) -> dict[str, Any]:
    history = json_value(read_source(path), path)
    if not isinstance(history, dict) or not {"A", "B"} <= history.keys():
        raise ImportInputError('not a game history {"A": [...], "B": [...]}', at=_at(path))
    if not isinstance(history["A"], list) or not isinstance(history["B"], list):
        raise ImportInputError('"A" and "B" must be lists of 0/1', at=_at(path))
    if len(history["A"]) != len(history["B"]):
        raise ImportInputError(
            f'"A" has {len(history["A"])} rounds, "B" {len(history["B"])}', at=_at(path)
        )
    if not history["A"]:
        raise ImportInputError("a game of no rounds", at=_at(path))
    return history


def _actions(history: dict[str, Any], player: str, path: Path) -> list[str]:
    try:
        return [_ACTIONS[value] for value in history[player]]
    except (KeyError, TypeError):
        index, value = next(
            (i, v)
            for i, v in enumerate(history[player])
            if isinstance(v, bool) or v not in _ACTIONS
        )
        raise ImportInputError(
            f"action {value!r} is neither 1 (cooperate) nor 0 (defect)",
            at=_at(path, column=f"{player}[{index}] (round {index + 1})"),
        ) from None


def _at(path: Path, *, line: int | None = None, column: str | None = None) -> SourceProblem:
    return SourceProblem(path, line=line, column=column)
