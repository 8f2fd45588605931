"""Rendering the PD prompts from their template files with ``str.format``.

Placeholders (a template may use any of them, and no others):

- system template: ``{persona}``, ``{payoff_table}``, ``{output_instruction}``, ``{actions}``
  (the two actions: ``C (cooperate) and D (defect)``, or with neutral labels ``J and F``)
- round template: ``{round_index}``, ``{totals}``, ``{history}``, ``{output_instruction}``
- strategy template (``elicit_strategy``): ``{cooperate}``, ``{defect}`` (the actions'
  labels), ``{table_shape}`` (the JSON object asked for, :mod:`pdbench.pd.statements`)

An empty placeholder (no persona, totals off) would leave a gap: runs of blank lines collapse
to one blank line, and the prompt is stripped at both ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pdbench.pd.actions import Turn
from pdbench.pd.labels import DEFAULT_LABELS, ActionLabels
from pdbench.pd.moves import ActionFormat
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.statements import STATEMENT_KEYS_LINE
from pdbench.pd.transcript import render_history, render_payoff_table, render_totals
from pdbench.templates import template_problem

__all__ = [
    "CORRECTION",
    "OUTPUT_INSTRUCTIONS",
    "ROUND_PLACEHOLDERS",
    "STRATEGY_PLACEHOLDERS",
    "SYSTEM_PLACEHOLDERS",
    "PromptTemplates",
    "correction_prompt",
    "output_instruction",
    "render_history_block",
    "render_round",
    "render_strategy",
    "render_system",
    "strategy_correction_prompt",
    "template_problem",
]

SYSTEM_PLACEHOLDERS = frozenset({"persona", "payoff_table", "output_instruction", "actions"})
ROUND_PLACEHOLDERS = frozenset({"round_index", "totals", "history", "output_instruction"})
STRATEGY_PLACEHOLDERS = frozenset({"cooperate", "defect", "table_shape"})

_ONE_LETTER = "Reply with exactly one letter: C to cooperate or D to defect. Output nothing else."
OUTPUT_INSTRUCTIONS: dict[str, str] = {
    "token": _ONE_LETTER,
    "lenient": _ONE_LETTER,
    "reasoning": (
        "Think it through in a few sentences, then end your reply with a final line that is "
        "exactly ACTION: C to cooperate or ACTION: D to defect."
    ),
    "json": (
        'Reply with exactly one JSON object and nothing else: {"action": "C"} to cooperate '
        'or {"action": "D"} to defect.'
    ),
}

_NEUTRAL_INSTRUCTIONS: dict[str, str] = {
    "token": "Reply with exactly one of {c} or {d}. Output nothing else.",
    "lenient": "Reply with exactly one of {c} or {d}. Output nothing else.",
    "reasoning": (
        "Think it through in a few sentences, then end your reply with a final line that is "
        "exactly ACTION: {c} or ACTION: {d}."
    ),
    "json": (
        'Reply with exactly one JSON object and nothing else: {{"action": "{c}"}} or '
        '{{"action": "{d}"}}.'
    ),
}
"""The instructions with neutral labels: they name the labels and no meaning."""


def output_instruction(output_format: ActionFormat, labels: ActionLabels = DEFAULT_LABELS) -> str:
    """What the prompts ask the reply to look like, in the actions' labels."""
    if not labels.neutral:
        return OUTPUT_INSTRUCTIONS[output_format]
    return _NEUTRAL_INSTRUCTIONS[output_format].format(c=labels.C, d=labels.D)


CORRECTION = "Your previous reply was not a valid move."
"""Put before the same round prompt when the reply could not be parsed."""

_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True, slots=True)
class PromptTemplates:
    """The texts of an LLM agent's template files (``persona`` is the fragment, or "")."""

    system: str
    round: str
    persona: str = ""
    strategy: str = ""
    """The strategy statement's template; "" when the agent is not asked for one."""

    @classmethod
    def from_files(
        cls,
        *,
        system_path: Path,
        round_path: Path,
        persona_path: Path | None,
        strategy_path: Path | None = None,
    ) -> PromptTemplates:
        """Read the files (UTF-8)."""
        persona = persona_path.read_text(encoding="utf-8").strip() if persona_path else ""
        return cls(
            system=system_path.read_text(encoding="utf-8"),
            round=round_path.read_text(encoding="utf-8"),
            persona=persona,
            strategy=strategy_path.read_text(encoding="utf-8") if strategy_path else "",
        )


def _tidy(text: str) -> str:
    return _BLANK_RUNS.sub("\n\n", text).strip()


def render_system(
    templates: PromptTemplates,
    *,
    matrix: PayoffMatrix,
    side: str,
    output_format: ActionFormat,
    labels: ActionLabels = DEFAULT_LABELS,
) -> str:
    """The system prompt: rules, the payoff table from ``side``'s view, persona, format."""
    return _tidy(
        templates.system.format(
            persona=templates.persona,
            payoff_table=render_payoff_table(matrix, side, labels),
            output_instruction=output_instruction(output_format, labels),
            actions=labels.choices(),
        )
    )


def render_history_block(
    turns: Sequence[Turn],
    *,
    round_index: int,
    history_window: int,
    labels: ActionLabels = DEFAULT_LABELS,
) -> str:
    """The history paragraph: the last ``history_window`` rounds, or why there are none."""
    if history_window == 0:
        return "You are not shown any previous rounds."
    if not turns:
        return "No rounds have been played yet."
    first = round_index - len(turns)
    noun = "round" if len(turns) == 1 else f"{len(turns)} rounds"
    return f"The last {noun}, oldest first:\n" + render_history(
        turns, first_round_index=first, labels=labels
    )


def render_round(
    templates: PromptTemplates,
    *,
    round_index: int,
    turns: Sequence[Turn],
    history_window: int,
    include_totals: bool,
    own_total: float,
    opponent_total: float,
    output_format: ActionFormat,
    labels: ActionLabels = DEFAULT_LABELS,
) -> str:
    """The round prompt for ``round_index`` given the visible ``turns`` (already windowed)."""
    totals = render_totals(own_total=own_total, opponent_total=opponent_total)
    return _tidy(
        templates.round.format(
            round_index=round_index,
            totals=totals if include_totals else "",
            history=render_history_block(
                turns, round_index=round_index, history_window=history_window, labels=labels
            ),
            output_instruction=output_instruction(output_format, labels),
        )
    )


def render_strategy(templates: PromptTemplates, labels: ActionLabels = DEFAULT_LABELS) -> str:
    """The prompt that asks for the agent's strategy as a memory-one table."""
    return _tidy(
        templates.strategy.format(
            cooperate=labels.C, defect=labels.D, table_shape=STATEMENT_KEYS_LINE
        )
    )


STRATEGY_CORRECTION = "Your previous reply was not a valid strategy table."
"""Put before the same strategy prompt when the reply could not be read as a table."""


def strategy_correction_prompt(strategy_prompt: str) -> str:
    """The re-prompt after a statement that could not be read."""
    return f"{STRATEGY_CORRECTION}\n\n{strategy_prompt}"


def correction_prompt(round_prompt: str) -> str:
    """The re-prompt after an invalid reply: a short correction, then the same round prompt."""
    return f"{CORRECTION}\n\n{round_prompt}"
