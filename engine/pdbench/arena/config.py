"""The ``game: arena`` config file (``configs/arena.yaml``) and its players.

A player is an agent config (usually ``{ref: agents/arena_player.yaml, overrides: {...}}``)
with a required ``name``: players can be different models, or one model with different
settings. ``dev: true`` is the development mode of the spec: 2 players are enough and each
writes 3 to 10 questions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from pdbench.arena.budgets import expand_budgets
from pdbench.arena.diversity_config import DiversityConfig
from pdbench.arena.pairing import pairing_problem
from pdbench.arena.pairwise_config import JudgingMode, PairingConfig, PairwiseConfig
from pdbench.arena.player_config import ArenaMockConfig, ArenaPlayerConfig, PlayerTokensConfig
from pdbench.arena.prompts import PHASES, Phase, phase_template_problem
from pdbench.arena.scoring_config import (
    AnomalyConfig,
    ArenaScoring,
    BootstrapConfig,
    QuestionFilterConfig,
    RationaleConfig,
    SeededAnomaly,
    SeededBootstrap,
    TrickScoring,
)
from pdbench.arena.tricks import TricksConfig
from pdbench.config.base import (
    RunId,
    Seed,
    StrictModel,
    config_root,
    read_text_file,
)
from pdbench.config.providers import ProviderLayerConfig
from pdbench.errors import unknown
from pdbench.rng import derive_seed

BatchPhase = Literal["generate", "rate", "answer", "judge", "self_assess", "pairwise"]
"""A phase whose requests a ``batch: true`` player can send in batches."""

__all__ = [
    "DEV_QUESTIONS",
    "AnomalyConfig",
    "ArenaConfig",
    "ArenaMockConfig",
    "ArenaPlayerConfig",
    "ArenaPromptsConfig",
    "BootstrapConfig",
    "PhaseTokensConfig",
    "PlayerTokensConfig",
    "QuestionFilterConfig",
    "RationaleConfig",
    "TricksConfig",
]

DEV_QUESTIONS = (3, 10)
"""Questions per player allowed in dev mode (inclusive)."""
MIN_PLAYERS = 3
MIN_DEV_PLAYERS = 2
MIN_WRITERS = 2
"""Fewest participants with role ``player`` (question writers)."""


class PhaseTokensConfig(StrictModel):
    """Most tokens a reply may have, per phase."""

    generate: int = Field(default=8000, ge=1)
    """The whole numbered list of questions."""
    rate: int = Field(default=8, ge=1)
    """One rating."""
    answer: int = Field(default=512, ge=1)
    """One answer."""
    judge: int = Field(default=8, ge=1)
    """One judgement."""
    rationale: int = Field(default=120, ge=1)
    """One rationale after an extreme judgement (``rationales``)."""
    self_assess: int = Field(default=8, ge=1)
    """One predicted score of a player's own answer (``self_assessment``)."""
    pairwise: int = Field(default=8, ge=1)
    """One verdict on two answers (``judging: pairwise`` or ``both``)."""


class ArenaPromptsConfig(StrictModel):
    """The five prompt templates, relative to the folder of the config file; a default is
    checked like a written path (a config kept outside ``configs/`` needs its own)."""

    model_config = ConfigDict(**StrictModel.model_config, validate_default=True)

    generate: str = "prompts/arena/generate.md"
    """Question writing: ``{n}``, ``{categories}``, ``{output_instruction}``."""
    rate: str = "prompts/arena/rate.md"
    """Question rating: ``{question}``, ``{output_instruction}``."""
    answer: str = "prompts/arena/answer.md"
    """Answering: ``{question}``, ``{output_instruction}``."""
    judge: str = "prompts/arena/judge.md"
    """Judging: ``{question}``, ``{answer}``, ``{output_instruction}``."""
    self_assess: str = "prompts/arena/self_assess.md"
    """Self-assessment (``self_assessment``): ``{question}``, ``{answer}`` (the player's
    own), ``{output_instruction}``."""

    @field_validator("generate", "rate", "answer", "judge", "self_assess")
    @classmethod
    def _template_exists(cls, value: str, info: ValidationInfo) -> str:
        path = config_root(info) / value
        if not path.is_file():
            raise ValueError(f"prompt file not found: {value}")
        phase: Phase = info.field_name  # type: ignore[assignment]
        problem = phase_template_problem(read_text_file(path, shown=value), phase=phase)
        if problem:
            raise ValueError(f"{value}: {problem}")
        return value

    def paths(self) -> dict[Phase, str]:
        """Phase -> template path."""
        return {phase: getattr(self, phase) for phase in PHASES}


class ArenaConfig(ProviderLayerConfig):
    """A Humanity's Last Arena tournament (``configs/arena.yaml``). Concurrency, per-model
    limits, prices and the cache path are the PD config's (:class:`ProviderLayerConfig`)."""

    game: Literal["arena"]
    """The game: ``arena``."""
    run_id: RunId
    """Name of the run; the run directory defaults to ``data/runs/<run_id>``."""
    seed: Seed
    """The one seed every random stream is derived from."""
    output_dir: str | None = None
    """Run directory, relative to the working directory (default ``data/runs/<run_id>``)."""
    dev: bool = False
    """Development mode: at least 2 answering players (else 3), 3 to 10 questions per
    player."""
    openai_model: str | None = None
    """The model of every player that names none (the arena seed's own setting; any
    provider)."""
    players: list[ArenaPlayerConfig] = Field(min_length=1)
    """The players (refs to agent files, or inline)."""
    categories: list[str] = Field(min_length=1)
    """The categories every player's questions must come from."""
    questions_per_player: int = Field(default=100, ge=1)
    """Questions each player is asked to write."""
    max_tokens: PhaseTokensConfig = Field(default_factory=PhaseTokensConfig)
    """Token limits per phase."""
    max_retries: int = Field(default=2, ge=0)
    """Re-asks after an unusable reply (attempts per call = 1 + max_retries)."""
    score_format: Literal["strict", "lenient"] = "strict"
    """How ratings and judgements are read (:mod:`pdbench.arena.scores`): ``strict``, the
    reply is an integer 0..10; ``lenient`` also ``7/10``, ``Score: 7``, ``7.``."""
    store_prompts: bool = True
    """Write the rendered prompt of every recorded reply into the phase files."""
    prompts: ArenaPromptsConfig = Field(
        default_factory=dict,
        validate_default=True,  # a default file is checked like a written one
    )
    """The five prompt templates."""
    question_filter: QuestionFilterConfig = Field(default_factory=QuestionFilterConfig)
    """Which rated questions go on to be answered."""
    normalization: Literal["shift", "scale", "zscore", "none", "fixed_effects"] = "shift"
    """How scoring makes every judge award 5 on average (see the scoring models)."""
    bootstrap: BootstrapConfig = Field(default_factory=BootstrapConfig)
    """Bootstrap settings of the leaderboard intervals."""
    anomaly: AnomalyConfig = Field(default_factory=AnomalyConfig)
    """Settings of the judge x player bias table."""
    rationales: RationaleConfig | None = Field(default_factory=RationaleConfig)
    """After a judgement at or below ``low`` or at or above ``high``, the judge is asked in a
    follow-up call (phase ``rationale``) for one or two sentences of rationale, recorded with
    the judgement; ``null`` asks for none."""
    self_assessment: bool = False
    """After judging, every player is shown each of its own valid answers (with the question)
    and asked for the 0..10 score it expects from the judges (phase ``self_assess``,
    ``self_assessments.jsonl``; ``calibration.parquet``). Off by default: it adds as many
    calls as answering, and a tournament that does not study calibration need not pay them."""
    tricks: TricksConfig = Field(default_factory=TricksConfig)
    """Adversarial rounds (:mod:`pdbench.arena.tricks`): ``share`` of each player's questions
    are trick questions (of ``kinds``) written with a private note of the correct handling,
    which raters and judges see as a rubric and answerers never see; an answer scored below
    ``fell_below`` fell for its trick (``robustness.parquet``, ``trick_outcomes.parquet``).
    Off by default (``share: 0``)."""
    diversity: DiversityConfig | None = None
    """Embed every question and answer after play (phase ``embed``, ``embeddings.jsonl``)
    and score how diverse each player's questions are (``diversity.parquet``,
    ``near_duplicates.parquet``), with an optional bonus reported next to the plain score;
    ``null`` (default) embeds nothing."""
    identity_leaks: Literal["flag", "scrub", "void"] = "flag"
    """What happens to a question or answer that names a player, its model or its maker
    (:mod:`pdbench.arena.leaks`): ``flag``, recorded only; ``scrub``, the words replaced by
    a neutral token in what others are shown; ``void``, not rated, answered or judged and
    excluded from scoring."""
    batch_phases: list[BatchPhase] = Field(
        default_factory=lambda: list(get_args(BatchPhase)), min_length=1
    )
    """The phases in which players with ``batch: true`` send their requests in batches (a
    judgement's rationale goes with ``judge``; ``pairwise``, the verdicts on two answers);
    in the others they make single calls."""
    judging: JudgingMode = "absolute"
    """``absolute``: every answer scored 0..10 alone (phase ``judge``); ``pairwise``: judges
    give verdicts on two answers to a question instead (phase ``pairwise``,
    ``pairwise_judgments.jsonl``); ``both``: both, on the same answers."""
    pairing: PairingConfig = Field(default_factory=PairingConfig)
    """Which pairs of answers pairwise judges are shown (``judging: pairwise`` or ``both``)."""
    pairwise: PairwiseConfig = Field(default_factory=PairwiseConfig)
    """How pairwise verdicts count in the Bradley-Terry ranking."""
    min_judgments: int = Field(default=3, ge=1)
    """Fewest valid judgements a player's score must rest on to be ranked; a player with
    fewer is listed as ``insufficient data`` with no rank and no interval."""

    @model_validator(mode="before")
    @classmethod
    def _expand_budgets(cls, data: object) -> object:
        if isinstance(data, dict) and isinstance(data.get("players"), list):
            return {**data, "players": expand_budgets(data["players"])}
        return data

    @model_validator(mode="before")
    @classmethod
    def _players_default_to_openai_model(cls, data: object) -> object:
        if not isinstance(data, dict) or data.get("openai_model") is None:
            return data
        players = data.get("players")
        if not isinstance(players, list):
            return data
        model = data["openai_model"]
        filled = [
            {**player, "model": model}
            if isinstance(player, dict) and player.get("model") is None
            else player
            for player in players
        ]
        return {**data, "players": filled}

    @model_validator(mode="after")
    def _pairing_fits(self, info: ValidationInfo) -> ArenaConfig:
        problem = pairing_problem(
            self.pairing,
            answerers=[p.name for p in self.players if p.answers],
            root=config_root(info),
            judging=self.judging,
        )
        if problem:
            raise ValueError(problem)
        return self

    @field_validator("categories")
    @classmethod
    def _clean_categories(cls, categories: list[str]) -> list[str]:
        seen: set[str] = set()
        for category in categories:
            key = category.strip().casefold()
            if not key or "[" in category or "]" in category or "\n" in category:
                raise ValueError(f"category {category!r} must be a non-empty word without [ ]")
            if key in seen:
                raise ValueError(f"category {category!r} is listed twice")
            seen.add(key)
        return [c.strip() for c in categories]

    @model_validator(mode="after")
    def _players_fit_the_mode(self) -> ArenaConfig:
        _check_roles(self.players, dev=self.dev)
        low, high = DEV_QUESTIONS
        if self.dev and not low <= self.questions_per_player <= high:
            raise ValueError(
                f"questions_per_player: must be {low} to {high} in dev mode "
                f"(got {self.questions_per_player})"
            )
        names = [p.name for p in self.players]
        if len(set(self.batch_phases)) != len(self.batch_phases):
            raise ValueError("batch_phases: a phase is listed twice")
        folded = [n.casefold() for n in names]
        for i, name in enumerate(names):
            if folded.index(name.casefold()) != i:
                raise ValueError(f"players[{i}].name: player name {name!r} is used twice")
        baseline = self.pairwise.baseline
        if baseline is not None and baseline not in names:
            raise ValueError("pairwise.baseline: " + unknown("player", baseline, names))
        _check_strengths(self.players)
        for i, player in enumerate(self.players):
            favours = player.mock.favours
            if favours is not None and favours not in names:
                raise ValueError(f"players[{i}].mock.favours: " + unknown("player", favours, names))
            if favours == player.name:
                raise ValueError(f"players[{i}].mock.favours: a player cannot favour itself")
            signature = (player.mock.signature or "").casefold()
            for other in folded:
                if other in signature:
                    raise ValueError(
                        f"players[{i}].mock.signature: must not contain a player name ({other!r})"
                    )
        return self

    def tokens(self, player: str, phase: str) -> int:
        """Most tokens ``player``'s reply may have in ``phase``: its own limit, else the
        arena's."""
        own = self._players_by_name()[player].max_tokens
        limit: int | None = getattr(own, phase) if own is not None else None
        if limit is not None:
            return limit
        arena_limit: int = getattr(self.max_tokens, phase)
        return arena_limit

    def _players_by_name(self) -> dict[str, ArenaPlayerConfig]:
        return {p.name: p for p in self.players}

    def run_dir(self, override: str | Path | None = None) -> Path:
        """Where this run writes: ``override``, else ``output_dir``, else data/runs/<run_id>."""
        if override is not None:
            return Path(override)
        return Path(self.output_dir) if self.output_dir else Path("data/runs") / self.run_id

    def scoring(self) -> dict[str, Any]:
        """The manifest's ``scoring`` (:class:`~pdbench.arena.scoring_config.ArenaScoring`):
        what the SQL models read (``stg_arena_scoring``), and the players with their planted
        traits (read by tests, never by SQL)."""
        return ArenaScoring(
            normalization=self.normalization,
            question_filter=self.question_filter,
            bootstrap=SeededBootstrap(n=self.bootstrap.n, seed=derive_seed(self.seed, "bootstrap")),
            anomaly=SeededAnomaly(
                **self.anomaly.model_dump(), seed=derive_seed(self.seed, "anomaly")
            ),
            min_judgments=self.min_judgments,
            identity_leaks=self.identity_leaks,
            rationales=self.rationales,
            self_assessment=self.self_assessment,
            tricks=TrickScoring(share=self.tricks.share, fell_below=self.tricks.fell_below),
            diversity=self.diversity,
            pairwise=self.pairwise,
            players=[p.truth() for p in self.players],
        ).model_dump(mode="json")


def _check_strengths(players: list[ArenaPlayerConfig]) -> None:
    """The Bradley-Terry mock needs a strength for every answerer, and its preferences need
    the strengths."""
    answerers = [(i, p) for i, p in enumerate(players) if p.answers]
    missing = [i for i, p in answerers if p.mock.strength is None]
    if missing and len(missing) < len(answerers):
        raise ValueError(
            f"players[{missing[0]}].mock.strength: missing; when one answerer plants a "
            "strength, every answerer must"
        )
    if not missing:
        return
    for i, player in enumerate(players):
        for trait in ("first_preference", "self_preference", "name_preference", "tie_share",
                      "strong_share", "length_preference", "first_log_odds", "self_log_odds",
                      "name_log_odds"):  # fmt: skip
            if getattr(player.mock, trait):
                raise ValueError(
                    f"players[{i}].mock.{trait}: takes effect only when every answerer "
                    "plants a strength"
                )


def _check_roles(players: list[ArenaPlayerConfig], *, dev: bool) -> None:
    """Enough participants in each role: at least 3 that answer (2 in dev mode), since the
    ranking is among them, and at least 2 that write (role ``player``). Writers also rate and
    judge, so two of them give every question a rater and every answer a judge who is not its
    author, whatever the other roles."""
    fewest = MIN_DEV_PLAYERS if dev else MIN_PLAYERS
    if sum(p.answers for p in players) < fewest:
        mode = "in dev mode" if dev else "(or 2 with dev: true)"
        if all(p.role == "player" for p in players):
            raise ValueError(f"players: at least {fewest} players are needed {mode}")
        raise ValueError(
            f"players: at least {fewest} players who answer (role player or answerer) are "
            f"needed {mode}"
        )
    if sum(p.writes for p in players) < MIN_WRITERS:
        raise ValueError(
            f"players: at least {MIN_WRITERS} players with role player are needed (they write "
            "the questions, and each one's questions and answers need a rater and a judge who "
            "is not its author)"
        )
