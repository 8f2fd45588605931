"""An arena player's config: the model it plays, its role, its own token limits, the mock's
planted traits, and for a ``budgets`` variant its family and label."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import Field

from pdbench.config.base import StrictModel, one_of
from pdbench.config.providers import ProviderAccessConfig

__all__ = [
    "ROLES",
    "ArenaMockConfig",
    "ArenaPlayerConfig",
    "Planted",
    "PlayerTokensConfig",
    "Role",
    "planted_traits",
]

Role = Literal["player", "judge", "answerer"]
ROLES: tuple[Role, ...] = ("player", "judge", "answerer")
"""What a participant does: ``player`` writes, rates, answers and judges; ``judge`` only rates
and judges (a referee that does not compete); ``answerer`` only answers (it competes but
neither writes nor evaluates)."""
WRITERS: frozenset[str] = frozenset({"player"})
"""Roles that write questions."""
EVALUATORS: frozenset[str] = frozenset({"player", "judge"})
"""Roles that rate questions and judge answers."""
ANSWERERS: frozenset[str] = frozenset({"player", "answerer"})
"""Roles that answer (and are judged and ranked, and self-assess)."""

_PLAYER_PATTERN = r"^[A-Za-z][A-Za-z0-9_-]*$"


@dataclass(frozen=True, slots=True)
class Planted:
    """A field of :class:`ArenaMockConfig` that is a planted trait, and how the rest of the
    arena reports it: the plan's line for the player, and the manifest's ``scoring.players``
    (the truth tests compare the marts with)."""

    label: str | None = None
    """Its name on the plan's line; ``None``: the plan does not show it."""
    acts_as: Literal["answers", "writes", "evaluates"] | None = None
    """The role it acts in (:class:`ArenaPlayerConfig`'s property): the plan shows it only
    for a participant in that role."""
    shown: Literal["always", "planted", "tricks"] = "always"
    """When the plan shows it: always, only when planted (not its default), or only in a
    run with trick questions."""
    signed: bool = False
    """Whether the plan writes its sign (``+2``)."""
    recorded: Literal["always", "planted"] = "always"
    """Whether ``scoring.players`` records it always or only when planted (the pairwise
    traits, so that other runs keep their manifests)."""


def _pairwise_bonus(label: str) -> Planted:
    """A pairwise judge's planted bonus."""
    return Planted(label, acts_as="evaluates", shown="planted", signed=True, recorded="planted")


class ArenaMockConfig(StrictModel):
    """The planted traits of a mock player (ignored by other providers).

    Scores are on the 0..10 scale; skills and qualities are in [0, 1].
    """

    answer_skill: Annotated[float, Planted("answer skill", acts_as="answers")] = Field(
        default=0.5, ge=0, le=1
    )
    """How good its answers are: an answer carries about ``10 * skill`` worked steps."""
    question_quality: Annotated[float, Planted("question quality", acts_as="writes")] = Field(
        default=0.5, ge=0, le=1
    )
    """How clear its questions are: a question carries about ``5 * quality`` clarifiers."""
    judge_leniency: Annotated[float, Planted("leniency", acts_as="evaluates", signed=True)] = Field(
        default=0.0, ge=-10, le=10
    )
    """Points it adds to every rating and judgement it gives."""
    judge_noise: Annotated[float, Planted("noise", acts_as="evaluates")] = Field(default=0.5, ge=0)
    """Standard deviation (points) of the noise on every rating and judgement it gives."""
    favours: Annotated[str | None, Planted("favours", acts_as="evaluates", shown="planted")] = None
    """A player whose answers it judges ``favour_bonus`` points higher, recognising them by
    their signature (never by name)."""
    favour_bonus: Annotated[float, Planted()] = Field(default=3.0, ge=-10, le=10)
    """Points added to the favoured player's answers; negative for a judge that down-scores
    a rival (``favours`` names the rival)."""
    signature: str | None = Field(default=None, min_length=3, max_length=80)
    """The sign-off every answer of this player ends with (default: one per player, by
    position in the config)."""
    invalid_rate: Annotated[float, Planted()] = Field(default=0.0, ge=0, le=1)
    """Probability that a reply is invalid (seeded)."""
    truncated_rate: float = Field(default=0.0, ge=0, le=1)
    """Probability that a reply runs long (seeded): the prompt echoed, then the reply, cut at
    the phase's ``max_tokens`` and reported cut at the token limit."""
    self_identifies: Annotated[float, Planted()] = Field(default=0.0, ge=0, le=1)
    """Probability that an answer ends by naming its player and model ("I am atlas, running
    on mock-arena."), seeded: a planted identity leak (:mod:`pdbench.arena.leaks`)."""
    overconfidence: Annotated[
        float, Planted("overconfidence", acts_as="answers", shown="planted", signed=True)
    ] = Field(default=0.0, ge=-10, le=10)
    """Points it adds to the score it predicts for its own answer (``self_assessment``): the
    prediction is the score a judge with no leniency would give (the worked steps it sees)
    plus this, plus noise ~ N(0, ``judge_noise``); negative for an underconfident player."""
    trick_bite: Annotated[float, Planted("trick bite", acts_as="writes", shown="tricks")] = Field(
        default=0.0, ge=0, le=1
    )
    """How hard its trick questions (``tricks``) catch answerers: a trick it writes carries
    ``round(5 * trick_bite)`` decoys (fixed misleading sentences) an answerer can fall for."""
    trick_robustness: Annotated[
        float, Planted("trick robustness", acts_as="answers", shown="tricks")
    ] = Field(default=0.5, ge=0, le=1)
    """The share of a trick's decoys it sees through as an answerer: each decoy it does not
    costs its answer ``2 * (1 - trick_robustness)`` worked steps (0: gullible, 1: never
    caught)."""
    repetitive: Annotated[float, Planted("repetitive", acts_as="writes", shown="planted")] = Field(
        default=0.0, ge=0, le=1
    )
    """Share of its questions (after the first) that are near paraphrases of its first
    question (``floor((n - 1) * repetitive)`` of them, spread evenly; deterministic): a
    planted repetitive question writer (``diversity``)."""
    first_bonus: Annotated[float, _pairwise_bonus("first bonus")] = Field(
        default=0.0, ge=-10, le=10
    )
    """Pairwise judging: points it adds to the answer shown first (a planted position bias;
    ``pairwise_position.parquet``)."""
    self_bonus: Annotated[float, _pairwise_bonus("self bonus")] = Field(default=0.0, ge=-10, le=10)
    """Pairwise judging with ``pairing.self_judging``: points it adds to an answer ending
    with its own signature (a planted self bias; ``pairwise_self_bias.parquet``)."""
    name_bonus: Annotated[float, _pairwise_bonus("name bonus")] = Field(default=0.0, ge=-10, le=10)
    """Pairwise judging with ``pairing.reveal_names``: points it adds to an answer labelled
    with the name of the player it ``favours`` (a planted name bias, on top of the signature
    it recognises blind; ``pairwise_name_bias.parquet``)."""
    strength: Annotated[float | None, Planted(recorded="planted")] = Field(
        default=None, ge=0, le=3000
    )
    """Pairwise judging, the Bradley-Terry mock: this player's planted strength on the Elo
    scale. When every answerer plants one, every mock judge draws its blind verdicts from the
    model instead of counting worked steps: it prefers an answer of strength s to one of s'
    with probability 1 / (1 + 10^((s' - s) / 400)), a tie only at ``tie_share``
    (``docs/pairwise_judging.md``, "Planted truth"); ``first_bonus``, ``self_bonus``,
    ``name_bonus`` and ``favour_bonus`` then do not act on verdicts (``favour_bonus`` still
    acts on absolute scores)."""
    first_preference: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=0, le=1)
    """The Bradley-Terry mock: the probability that it prefers the answer shown first,
    whatever the answers (its first-position win rate is ``0.5 + first_preference / 2`` over
    both orders)."""
    self_preference: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=0, le=1)
    """The Bradley-Terry mock with ``pairing.self_judging``: the probability that it prefers
    its own answer, whatever the other."""
    name_preference: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=0, le=1)
    """The Bradley-Terry mock with ``pairing.reveal_names``: the probability that it prefers
    the answer labelled with the name of the player it ``favours``, whatever the other
    (blind, it does not recognise that player)."""
    tie_share: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=0, le=1)
    """The Bradley-Terry mock: the probability that a verdict the strengths decide (no
    preference acted) is a tie, ``A=B``, whatever the strengths."""
    strong_share: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=0, le=1)
    """The Bradley-Terry mock: the probability that a verdict the strengths decide, not a
    tie, is strong (``A>>B``, ``B>>A``; counted ``pairwise.strong_weight`` times)."""
    answer_words: Annotated[float | None, Planted(recorded="planted")] = Field(
        default=None, ge=20, le=2000
    )
    """The mean length of its answers, in words: each answer's length is drawn around it
    (normal, standard deviation a quarter of it) and reached with filler sentences that hold
    no worked step, so length varies within a player, as in real arenas, and the steps a
    judge counts are unchanged (an answer longer than the draw stays as it is)."""
    length_preference: Annotated[float, Planted(recorded="planted")] = Field(
        default=0.0, ge=-5, le=5
    )
    """The Bradley-Terry mock: log-odds it adds, per 100 words of difference, to preferring
    the longer answer when the strengths decide a verdict (the length bias style control
    measures)."""
    first_log_odds: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=-5, le=5)
    """The Bradley-Terry mock: log-odds it adds to preferring the answer shown first when the
    strengths decide a verdict (a position preference in the form the joint model of pairwise
    judging fits; ``first_preference`` is the mixture form)."""
    self_log_odds: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=-5, le=5)
    """The Bradley-Terry mock with ``pairing.self_judging``: log-odds it adds to preferring
    its own answer (the one ending with its signature) when the strengths decide a verdict."""
    name_log_odds: Annotated[float, Planted(recorded="planted")] = Field(default=0.0, ge=-5, le=5)
    """The Bradley-Terry mock with ``pairing.reveal_names``: log-odds it adds to preferring
    the answer labelled with the name of the player it ``favours`` when the strengths decide
    a verdict (blind, it does not recognise that player)."""
    latency_ms: float = Field(default=0.0, ge=0)
    """Simulated latency per call."""
    seed: int | None = None
    """Fixed seed for the mock (default: derived from the run seed and the player name)."""

    def is_planted(self, name: str) -> bool:
        """Whether trait ``name`` is set away from its default."""
        return bool(getattr(self, name) != type(self).model_fields[name].default)


def planted_traits() -> Iterator[tuple[str, Planted]]:
    """The planted traits of :class:`ArenaMockConfig`, in field order: the one catalogue
    the plan and the manifest read."""
    for name, field in ArenaMockConfig.model_fields.items():
        for marker in field.metadata:
            if isinstance(marker, Planted):
                yield name, marker


class PlayerTokensConfig(StrictModel):
    """A player's own token limits; a phase left out takes the arena's."""

    generate: int | None = Field(default=None, ge=1)
    """Writing the player's questions."""
    rate: int | None = Field(default=None, ge=1)
    """Rating another player's question."""
    answer: int | None = Field(default=None, ge=1)
    """Answering a kept question."""
    judge: int | None = Field(default=None, ge=1)
    """Scoring another player's answer."""
    rationale: int | None = Field(default=None, ge=1)
    """The reason asked for an extreme score."""
    pairwise: int | None = Field(default=None, ge=1)
    """One verdict on two answers (``judging: pairwise`` or ``both``)."""


class ArenaPlayerConfig(ProviderAccessConfig):
    """One player: a model behind a provider (reached as a PD agent's is: ``base_url``,
    ``api_key_env``, ``transport``, ``cache``), under a name used only in the records."""

    type: Literal["llm"] = "llm"
    """``llm``."""
    name: str = Field(pattern=_PLAYER_PATTERN)
    """Unique player name (letters, digits, ``_ -``, starting with a letter). Never shown to
    other players."""
    role: Annotated[str, one_of("role", ROLES)] = "player"
    """``player`` (writes, rates, answers, judges), ``judge`` (rates and judges only: a
    referee that is not ranked) or ``answerer`` (answers only: ranked, never writes, rates or
    judges)."""
    mock: ArenaMockConfig = Field(default_factory=ArenaMockConfig)
    """Planted traits of the mock provider."""
    max_tokens: PlayerTokensConfig | None = None
    """This player's own token limits, per phase, over the arena's ``max_tokens``."""
    family: str | None = None
    """The player entry a ``budgets`` variant comes from (set by the expansion)."""
    budget: str | None = None
    """The variant's label (set by the expansion, :mod:`pdbench.arena.budgets`)."""

    @property
    def writes(self) -> bool:
        """Whether this participant writes questions."""
        return self.role in WRITERS

    @property
    def evaluates(self) -> bool:
        """Whether this participant rates questions and judges answers."""
        return self.role in EVALUATORS

    @property
    def answers(self) -> bool:
        """Whether this participant answers (and is judged and ranked)."""
        return self.role in ANSWERERS

    def truth(self) -> dict[str, Any]:
        """This player in the manifest's ``scoring.players``: name, model and, for a mock
        player, its planted traits, flat (the shape ``docs/arena_scoring.md`` documents)."""
        truth: dict[str, Any] = {
            "name": self.name,
            "provider": self.provider,
            "model": self.model,
            "role": self.role,
        }
        if self.provider != "mock":
            return truth
        mock = self.mock
        planted = {
            name: getattr(mock, name)
            for name, trait in planted_traits()
            if trait.recorded == "always" or mock.is_planted(name)
        }
        return truth | planted
