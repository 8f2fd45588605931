"""The mock's arena player: writes, rates, answers, judges and self-assesses with planted
traits.

It plays through the text interface, like a model: the phase comes from the output
instruction of the prompt (:func:`pdbench.arena.prompts.phase_of_prompt`), and everything it
judges it reads from the text it is shown. It never learns who wrote anything:

- **Questions** carry 0 to 5 *clarifiers* (fixed sentences such as "State your
  assumptions."), about ``5 * question_quality`` of them. A rater perceives clarity as
  ``2 * clarifiers`` (0..10).
- **Answers** carry 0 to 10 worked steps (``Step 1: ...``), about
  ``10 * answer_skill - difficulty`` of them, where the difficulty (0..3) comes from the
  question; every answer ends with the player's *signature* sign-off. A judge perceives
  quality as the number of steps it sees.
- **Repetition**: with ``repetitive`` r, ``floor((n - 1) * r)`` of the questions after the
  first, spread evenly among them, are near paraphrases of the first: its stem reworded by a short
  lead-in (``"Again, ..."``), with the first question's clarifiers. A planted repetitive
  question writer, for the diversity marts.
- **Self-identification**: with ``self_identifies`` p, an answer ends, with probability p
  (seeded), with a sentence naming the player and its model ("I am atlas, running on
  mock-arena."): a planted identity leak.
- **Scores**: ``round(perceived + judge_leniency + noise)``, clamped to 0..10, with noise
  ~ N(0, judge_noise). A judge that *favours* a player adds ``favour_bonus`` when the answer
  ends with that player's signature: a style it recognises, never a name (the runner hands
  it the favoured player's signature, not the player). A negative ``favour_bonus`` makes it a
  judge that down-scores that player (a rival).

- **Pairwise verdicts** (``judging: pairwise``): shown answers A and B, it perceives each
  as its steps plus the same bonuses as a score (``favour_bonus`` for the favoured
  signature) plus ``self_bonus`` for its own signature, ``name_bonus`` for an answer
  labelled with the favoured player's name (the name arm) and ``first_bonus`` for A, each
  with its own noise ~ N(0, judge_noise); leniency cancels. With d = A's minus B's: a tie
  (``A=B``) when |d| < 1, a strong verdict (``A>>B``, ``B>>A``) when |d| >= 3, else
  ``A>B`` or ``B>A``.
- **Bradley-Terry verdicts**: when every answerer plants a ``strength`` (Elo scale), the
  runner hands each judge the table of signatures and strengths and its verdicts are drawn
  from closed-form probabilities instead (:mod:`pdbench.arena.mock_verdicts`).
- **Tricks** (``tricks``): a question the prompt marks as a trick carries
  ``round(5 * trick_bite)`` *decoys* (fixed misleading sentences such as "Everyone knows the
  usual answer.") and is followed by a ``Note:`` line. An answerer is not told which
  questions are tricks; it counts the decoys it reads, and each costs its answer
  ``2 * (1 - trick_robustness)`` worked steps.
- **Rationales**: asked why it gave an extreme score, it names the worked steps it counted.
- **Self-assessment**: shown its own answer, it predicts ``round(steps + overconfidence +
  noise)``, clamped to 0..10, with noise ~ N(0, judge_noise): the score a judge with no
  leniency would give, shifted by its planted ``overconfidence``.

Invalid replies at the planted rate come from :class:`pdbench.providers.mock.MockProvider`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from random import Random

from pdbench.arena.mock_verdicts import bradley_terry_verdict
from pdbench.arena.player_config import ArenaMockConfig
from pdbench.arena.prompts import phase_of_prompt
from pdbench.providers.mock import MockSetup

__all__ = ["CLARIFIERS", "DECOYS", "SIGN_OFFS", "STEPS", "ArenaMockPlayer", "ArenaMockSettings"]

CLARIFIERS = (
    "State your assumptions.",
    "Give a one-line justification.",
    "Use at most three sentences.",
    "Name a counterexample if one exists.",
    "Define every term you use.",
)
"""What makes a mock question clear; a rater counts them."""

DECOYS = (
    "Everyone knows the usual answer.",
    "The obvious reading is the right one.",
    "Experts settled this long ago.",
    "Take the premise as given.",
    "Answer without second-guessing it.",
)
"""What makes a mock trick question bite; an answerer that does not see through them loses
worked steps."""

STEPS = (
    "restate what is asked",
    "name the definitions involved",
    "work through a small case",
    "generalise from the small case",
    "check an edge case",
    "compare with a known result",
    "state the result",
    "explain why the result holds",
    "note a limitation",
    "summarise the argument",
)
"""The worked steps of a mock answer; a judge counts them."""

SIGN_OFFS = (
    "Hope this helps.",
    "That settles it.",
    "Happy to expand on any step.",
    "Let me know if anything is unclear.",
    "That is the whole story.",
    "Thanks for the question.",
    "Short and sweet.",
    "Over and out.",
)
"""Default signatures, one per player by position in the config."""

_STEMS = (
    "In {category}, why does claim {k} hold, or when does it fail?",
    "What is the key idea behind {category} puzzle {k}?",
    "How would you test statement {k} from {category}?",
    "Which assumption of {category} problem {k} matters most, and why?",
)
_REWORDINGS = ("So,", "Again,", "Now,", "Then,", "Also,", "Briefly,", "Once more,", "In short,",
               "Put simply,", "Restated,", "Reworded,", "Rephrased,")  # fmt: skip
"""Lead-ins of a repetitive writer's paraphrases of its first question (the j-th
paraphrase takes the j-th, then the j-th again with a number: every one is distinct)."""
_INSTRUCTION = re.compile(r"Write exactly (\d+) questions as a numbered list")
_CATEGORIES = re.compile(r"one of: (.*?)\. For example")
_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
_STEP = re.compile(r"Step (\d+):")
_TRICK = re.compile(r"question (\d+) must ")
_TRICK_NOTE = "Note: a good answer spots the trick and says so instead of answering as asked."
_MAX_DIFFICULTY = 3.0
_SHOWN = re.compile(
    r"\[The Start of Assistant ([AB])'s Answer(?:, written by ([^\]\n]*))?\]\n(.*?)\n"
    r"\[The End of Assistant \1's Answer\]",
    re.DOTALL,
)
_TIE_MARGIN = 1.0
_STRONG_MARGIN = 3.0


@dataclass(frozen=True, slots=True)
class ArenaMockSettings:
    """What the mock arena player is built from: its planted traits, as configured, and what
    the runner resolves for it (signatures, its own identity, the answerers' strengths)."""

    traits: ArenaMockConfig
    """The planted traits (:class:`pdbench.arena.player_config.ArenaMockConfig`)."""
    signature: str
    """The sign-off of this player's answers."""
    favoured_signature: str | None = None
    """The sign-off of the player this one favours as a judge, if any."""
    identity: str = ""
    """The sentence that names this player and its model (the one thing it knows of
    itself: never another player's name)."""
    strengths: tuple[tuple[str, float], ...] = ()
    """The Bradley-Terry mock: ``(signature, Elo strength)`` of every answerer; empty, the
    verdicts count worked steps."""

    def mock_setup(self) -> MockSetup:
        """The mock provider's player and settings (:class:`pdbench.providers.mock.MockSource`)."""
        traits = self.traits
        return MockSetup(
            player=ArenaMockPlayer(settings=self),
            seed=traits.seed,
            invalid_rate=traits.invalid_rate,
            latency_ms=traits.latency_ms,
            truncated_rate=traits.truncated_rate,
        )


def _repeats(i: int, *, share: float) -> bool:
    """Whether question ``i`` (1-based) paraphrases the first: of questions 2..i, the
    first ``floor((i - 1) * share)`` do, spread evenly (no random draw, so the other traits'
    draws are the same with or without it)."""
    return i > 1 and int((i - 1) * share + 1e-9) > int((i - 2) * share + 1e-9)


def _paraphrase(stem: str, *, j: int) -> str:
    """The ``j``-th (0-based) rewording of ``stem``: a short lead-in before it."""
    lead = _REWORDINGS[j % len(_REWORDINGS)]
    round_ = j // len(_REWORDINGS)
    return f"{lead} {stem}" if round_ == 0 else f"{lead} ({round_ + 1}) {stem}"


_FILLER = "To put it another way, the reasoning above holds as it is written."


def _padded(steps: list[str], opening: str, mean_words: float, rng: Random) -> list[str]:
    """``steps`` followed by filler sentences (no worked step) until the answer holds about
    a length drawn around ``mean_words`` (sd a quarter of it); never shortened."""
    target = round(rng.gauss(mean_words, mean_words / 4))
    words = len(" ".join([opening, *steps]).split())
    filler = _FILLER.split()
    padding = [filler[i % len(filler)] for i in range(max(0, target - words))]
    return [*steps, " ".join(padding)] if padding else steps


def _clamp_score(value: float) -> int:
    return max(0, min(10, round(value)))


def _unit(text: str) -> float:
    """A number in [0, 1) fixed by ``text``."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") / 2**64


class ArenaMockPlayer:
    """Answers arena prompts with the traits of ``settings`` (see the module docstring)."""

    def __init__(self, *, settings: ArenaMockSettings) -> None:
        self.settings = settings
        self.traits = settings.traits

    def reply(self, *, system: str, prompt: str, rng: Random) -> str:
        phase = phase_of_prompt(prompt)
        if phase == "generate":
            return self._questions(prompt, rng)
        if phase == "rate":
            clarity = 2 * sum(clarifier in prompt for clarifier in CLARIFIERS)
            return str(self._score(clarity, rng))
        if phase == "answer":
            return self._answer(prompt, rng)
        if phase == "rationale":
            steps = len(set(_STEP.findall(prompt)))
            return f"The answer shows {steps} worked steps. That is what the score reflects."
        if phase == "pairwise":
            return self._verdict(prompt, rng)
        if phase == "self_assess":
            steps = len(set(_STEP.findall(prompt)))
            return str(self._predict(steps, rng))
        if phase == "judge":
            steps = len(set(_STEP.findall(prompt)))
            favoured = self.settings.favoured_signature
            bonus = self.traits.favour_bonus if favoured and favoured in prompt else 0.0
            return str(self._score(steps + bonus, rng))
        return "I am not sure what is being asked."

    def _score(self, perceived: float, rng: Random) -> int:
        noise = rng.gauss(0, self.traits.judge_noise) if self.traits.judge_noise else 0.0
        return _clamp_score(perceived + self.traits.judge_leniency + noise)

    def _verdict(self, prompt: str, rng: Random) -> str:
        shown = {label: (author, text) for label, author, text in _SHOWN.findall(prompt)}
        if set(shown) != {"A", "B"}:
            return "I am not sure what is being asked."
        if self.settings.strengths:
            return bradley_terry_verdict(
                shown=shown,
                strengths=dict(self.settings.strengths),
                signature=self.settings.signature,
                favoured_name=self.traits.favours,
                first_preference=self.traits.first_preference,
                self_preference=self.traits.self_preference,
                name_preference=self.traits.name_preference,
                tie_share=self.traits.tie_share,
                strong_share=self.traits.strong_share,
                length_preference=self.traits.length_preference,
                first_log_odds=self.traits.first_log_odds,
                self_log_odds=self.traits.self_log_odds,
                name_log_odds=self.traits.name_log_odds,
                rng=rng,
            )
        settings, traits = self.settings, self.traits
        noise = traits.judge_noise
        perceived = {}
        for label, (author, text) in sorted(shown.items()):
            quality = len(set(_STEP.findall(text))) + (traits.first_bonus if label == "A" else 0)
            if settings.favoured_signature and settings.favoured_signature in text:
                quality += traits.favour_bonus
            if settings.signature in text:
                quality += traits.self_bonus
            if author and author.split(" (")[0] == traits.favours:
                quality += traits.name_bonus
            perceived[label] = quality + (rng.gauss(0, noise) if noise else 0.0)
        difference = perceived["A"] - perceived["B"]
        if abs(difference) < _TIE_MARGIN:
            return "A=B"
        better, worse = ("A", "B") if difference > 0 else ("B", "A")
        return f"{better}{'>>' if abs(difference) >= _STRONG_MARGIN else '>'}{worse}"

    def _predict(self, steps: int, rng: Random) -> int:
        noise = rng.gauss(0, self.traits.judge_noise) if self.traits.judge_noise else 0.0
        return _clamp_score(steps + self.traits.overconfidence + noise)

    def _questions(self, prompt: str, rng: Random) -> str:
        count = _INSTRUCTION.search(prompt)
        listed = _CATEGORIES.search(prompt)
        n = int(count.group(1)) if count else 1
        categories = _BRACKETED.findall(listed.group(1)) if listed else ["general"]
        tricks = {int(p) for p in _TRICK.findall(prompt)}
        n_decoys = round(len(DECOYS) * self.traits.trick_bite)
        lines = ["Here are the questions:", ""]
        first: tuple[str, str, list[str]] | None = None
        for i in range(1, n + 1):
            category = categories[(i - 1) % len(categories)]
            stem = _STEMS[rng.randrange(len(_STEMS))].format(
                category=category, k=rng.randrange(100, 10000)
            )
            quality = 5 * self.traits.question_quality + rng.gauss(0, 0.5)
            n_clear = max(0, min(len(CLARIFIERS), round(quality)))
            clarifiers = rng.sample(CLARIFIERS, n_clear)
            first = first or (category, stem, clarifiers)
            if _repeats(i, share=self.traits.repetitive):
                category, stem, clarifiers = first
                stem = _paraphrase(stem, j=i - 2)
            decoys = list(DECOYS[:n_decoys]) if i in tricks else []
            lines.append(" ".join([f"{i}. [{category}] {stem}", *clarifiers, *decoys]))
            if i in tricks:
                lines.append(_TRICK_NOTE)
        return "\n".join(lines)

    def _answer(self, prompt: str, rng: Random) -> str:
        difficulty = _MAX_DIFFICULTY * _unit(prompt)
        level = 10 * self.traits.answer_skill - difficulty + rng.gauss(0, 1.0)
        caught = sum(decoy in prompt for decoy in DECOYS)
        level -= 2 * caught * (1 - self.traits.trick_robustness)
        n_steps = max(0, min(len(STEPS), round(level)))
        steps = [f"Step {i}: {STEPS[i - 1]}." for i in range(1, n_steps + 1)]
        opening = "Here is my answer." if steps else "I do not know."
        if self.traits.answer_words is not None:  # drawn only when planted
            steps = _padded(steps, opening, self.traits.answer_words, rng)
        closing = [self.settings.signature]
        # drawn only when planted, so a player without the trait keeps its replies
        if self.traits.self_identifies and rng.random() < self.traits.self_identifies:
            closing.append(self.settings.identity)
        return " ".join([opening, *steps, *closing])
