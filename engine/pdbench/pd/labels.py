"""The words the prompts use for the two actions, and reading them back.

By default an agent is asked to choose between ``C`` (cooperate) and ``D`` (defect). Labels
such as ``actions: {C: J, D: F}`` in the experiment file name the actions neutrally instead,
since the words "cooperate" and "defect" prime a model (Akata et al. used J and F): the
rules, the payoff table, the history and the output instruction then say ``J`` and ``F`` and
never "cooperate" or "defect", and a reply is read in those labels. The records, and so
everything downstream, still speak ``C`` and ``D``; the labels are in the manifest's config.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_LABELS", "ActionLabels"]


@dataclass(frozen=True, slots=True)
class ActionLabels:
    """The label of ``C`` and the label of ``D`` in the text an agent sees and writes."""

    C: str = "C"
    D: str = "D"

    @property
    def neutral(self) -> bool:
        """Whether the labels differ from ``C``/``D`` (then no prompt says cooperate or
        defect)."""
        return (self.C, self.D) != ("C", "D")

    def label(self, action: str) -> str:
        """The label of ``action`` (``"C"``/``"D"``)."""
        return self.C if action == "C" else self.D

    def action(self, label: str) -> str | None:
        """The action a label (any case, surrounding spaces ignored) stands for, if any."""
        text = label.strip().casefold()
        if text == self.C.casefold():
            return "C"
        if text == self.D.casefold():
            return "D"
        return None

    def choices(self) -> str:
        """How the system prompt names the two actions: ``C (cooperate) and D (defect)``, or
        ``J and F``."""
        if not self.neutral:
            return "C (cooperate) and D (defect)"
        return f"{self.C} and {self.D}"


DEFAULT_LABELS = ActionLabels()
