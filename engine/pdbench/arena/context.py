"""What every phase of a tournament plans from: the config, the prompt templates, who takes
part in which phase (by ``role``), the identity-leak rule and the trick slots."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pdbench.arena.config import ArenaConfig
from pdbench.arena.leaks import LeakRule
from pdbench.arena.prompts import ArenaTemplates, Trick
from pdbench.arena.tricks import trick_slots

__all__ = ["PhaseContext"]


@dataclass(frozen=True)
class PhaseContext:
    """What every phase plans from."""

    config: ArenaConfig
    templates: ArenaTemplates
    pairwise_template: str = ""
    """The pairwise judging template (``pairing.prompt``), read when ``judging`` is not
    ``absolute``."""

    @property
    def players(self) -> list[str]:
        """Participant names in config order, every role."""
        return [p.name for p in self.config.players]

    @property
    def writers(self) -> list[str]:
        """The participants who write questions (role ``player``), in config order."""
        return [p.name for p in self.config.players if p.writes]

    @property
    def evaluators(self) -> list[str]:
        """The participants who rate and judge (``player``, ``judge``), in config order."""
        return [p.name for p in self.config.players if p.evaluates]

    @property
    def answerers(self) -> list[str]:
        """The participants who answer (``player``, ``answerer``), in config order."""
        return [p.name for p in self.config.players if p.answers]

    @cached_property
    def leak_rule(self) -> LeakRule:
        """The identity-leak rule of every participant, whatever its role
        (:mod:`pdbench.arena.leaks`)."""
        return LeakRule.for_players((p.name, p.provider, p.model) for p in self.config.players)

    def leak_fields(self, text: str, *, note: str | None = None) -> dict[str, Any]:
        """A question's or answer's ``leaked_identities``, ``shown_text`` and ``is_void``
        under the config's ``identity_leaks``; a trick's ``note`` counts as part of it."""
        check = self.leak_rule.check(text)
        leaked = set(check.leaked) | set(self.leak_rule.check(note).leaked if note else ())
        mode = self.config.identity_leaks
        return {
            "leaked_identities": sorted(leaked),
            "shown_text": check.shown if mode == "scrub" else text,
            "is_void": mode == "void" and bool(leaked),
        }

    def trick_slots(self, player: str) -> dict[int, str]:
        """Position -> kind of ``player``'s trick questions (:mod:`pdbench.arena.tricks`)."""
        config = self.config
        return trick_slots(
            seed=config.seed, player=player, n=config.questions_per_player, tricks=config.tricks
        )

    def shown_trick(self, question: dict[str, Any]) -> Trick | None:
        """A trick question's kind and note as raters and judges see them (the note
        scrubbed like the text under ``identity_leaks: scrub``); None for an ordinary one."""
        kind = question.get("trick_kind")
        if kind is None:
            return None
        note = question.get("trick_note")
        if note and self.config.identity_leaks == "scrub":
            note = self.leak_rule.check(note).shown
        return Trick(kind=kind, note=note)
