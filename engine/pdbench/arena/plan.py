"""How many calls a tournament makes per phase, before anything is spent (``--dry-run``).

With P participants of role ``player``, J of role ``judge`` and A' of role ``answerer``
(writers W = P, evaluators R = P + J, answerers A = P + A'), Q questions per writer and K
kept questions, without re-asks:

- generate: W
- rate: W * Q * (R - 1)  (every question, by every evaluator but its author, who is one)
- answer: A * K          (every kept question, by every answerer)
- judge: K * (A * R - P) (every answer, by every evaluator but its author; only the P
  players are both)
- rationale: at most the judge count with ``rationales`` (one per extreme judgement)
- self_assess: A * K with ``self_assessment`` (every answer, by its answerer)
- pairwise: with ``judging: pairwise`` or ``both``, the showings of
  :mod:`pdbench.arena.pairing` counted over every question id the writers are asked for
  (ids depend on the seed, writer and position only), with every answerer's answer valid:
  per question and pair, one per judge who wrote neither answer (or any, with
  ``self_judging``), times 2 with ``position_swap`` and 2 with ``reveal_names``. With all
  N participants players, ``all`` gives K * C(N, 2) * (N - 2) blind showings,
  ``reference`` K * (N - 1) * (N - 2); ``sample`` depends on the pairs drawn and is counted
  pair by pair. ``judging: pairwise`` plans no judge (nor rationale) calls.
- embed: ceil((W * Q + A * K) / batch_size) with ``diversity`` (every question and answer,
  ``batch_size`` texts per request of the embedder; not in the token and cost estimate)

With every participant a player (N of them) these are N, N * Q * (N - 1), N * K,
K * N * (N - 1) and N * K. Before the filter runs, K is at most W * Q (exactly W * Q under
``question_filter: none``).
Rate, answer, judge and self_assess are upper bounds when a player writes fewer than Q usable
questions or an answer stays invalid; every count can grow by up to ``max_retries`` re-asks
per call.

Tokens and cost (:func:`estimate_arena`, summed per model by the PD's
:class:`pdbench.pd.estimate.CallEstimate`): each phase's prompt is rendered from its
template with the question counted at its share of the generation budget (the largest
``max_tokens.generate / questions_per_player`` of the players) and the answer at the largest
``max_tokens.answer`` (ceilings: texts are not known before they are written), with
``tricks`` the longest trick instruction and every rated or judged question a trick whose
note is as long as a question, as characters / 4; replies count as the player's
``max_tokens`` of the phase, plus its whole reasoning budget on every call for a reasoning
model or a model with thinking (see :mod:`pdbench.pd.estimate`). Calls are the counts
above, spread evenly over the participants whose role takes part in the phase. Players with
``batch: true`` are priced at the batch price (``batches.price_factor`` of the list price);
every model shows both.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pdbench.arena.config import ArenaConfig
from pdbench.arena.ids import question_id
from pdbench.arena.pairing import showings
from pdbench.arena.player_config import ArenaPlayerConfig, planted_traits
from pdbench.arena.prompts import (
    ArenaTemplates,
    Phase,
    Trick,
    render_answer,
    render_generate,
    render_judge,
    render_pairwise,
    render_rate,
    render_rationale,
    render_self_assess,
)
from pdbench.arena.tricks import trick_instruction, trick_slots
from pdbench.config.loader import LoadedConfig
from pdbench.run.estimate import CallEstimate
from pdbench.run.runtime import price_table

__all__ = [
    "PhaseCalls",
    "calls_per_phase",
    "estimate_arena",
    "phase_prompt_tokens",
    "plan_calls",
    "summary_lines",
]


@dataclass(frozen=True, slots=True)
class PhaseCalls:
    """The planned calls of one phase."""

    phase: Phase | Literal["rationale", "pairwise", "embed"]
    calls: int
    exact: bool
    """False when ``calls`` is only an upper bound (the filter has not run yet)."""


def calls_per_phase(
    *, players: int, judges: int = 0, answerers: int = 0, questions_per_player: int, kept: int
) -> dict[Phase, int]:
    """Calls per phase without re-asks, for ``kept`` kept questions, with ``players``
    participants of role ``player``, ``judges`` of role ``judge`` and ``answerers`` of role
    ``answerer``."""
    writers, evaluators, answering = players, players + judges, players + answerers
    return {
        "generate": writers,
        "rate": writers * questions_per_player * (evaluators - 1),
        "answer": answering * kept,
        "judge": kept * (answering * evaluators - players),
        "self_assess": answering * kept,
    }


def _role_counts(config: ArenaConfig) -> dict[str, int]:
    roles = [p.role for p in config.players]
    return {
        "players": roles.count("player"),
        "judges": roles.count("judge"),
        "answerers": roles.count("answerer"),
    }


def plan_calls(config: ArenaConfig) -> list[PhaseCalls]:
    """The calls of ``config``'s tournament, assuming every player writes every question;
    with ``rationales``, at most one rationale per judgement; self-assessments only with
    ``self_assessment``."""
    roles = _role_counts(config)
    q = config.questions_per_player
    counts = calls_per_phase(**roles, questions_per_player=q, kept=roles["players"] * q)
    known = config.question_filter.kind == "none"
    absolute = config.judging != "pairwise"
    plan = [
        PhaseCalls(phase=phase, calls=calls, exact=phase in ("generate", "rate") or known)
        for phase, calls in counts.items()
        if phase != "self_assess" and (phase != "judge" or absolute)
    ]
    if config.rationales is not None and absolute:
        plan.append(PhaseCalls(phase="rationale", calls=counts["judge"], exact=False))
    if config.self_assessment:
        plan.append(PhaseCalls(phase="self_assess", calls=counts["self_assess"], exact=known))
    if config.judging != "absolute":
        pairwise = sum(pairwise_calls(config).values())
        plan.append(PhaseCalls(phase="pairwise", calls=pairwise, exact=known))
    if config.diversity is not None:  # every question, every kept question's answers
        texts = roles["players"] * q + counts["answer"]
        size = config.diversity.embedding.batch_size
        plan.append(PhaseCalls(phase="embed", calls=-(-texts // size), exact=False))
    return plan


def pairwise_calls(config: ArenaConfig) -> Counter[str]:
    """Pairwise calls per judge, before re-asks: the showings of every question the writers
    are asked for, every answer valid (see the module docstring)."""
    answerers = [p.name for p in config.players if p.answers]
    judges = [p.name for p in config.players if p.evaluates]
    calls: Counter[str] = Counter()
    for writer in (p.name for p in config.players if p.writes):
        for position in range(1, config.questions_per_player + 1):
            item = question_id(seed=config.seed, author=writer, position=position)
            found = showings(
                item, answerers, judges=judges, pairing=config.pairing, seed=config.seed
            )
            calls.update(showing.judge for showing in found)
    return calls


def phase_prompt_tokens(loaded: LoadedConfig) -> dict[str, int]:
    """Tokens (characters / 4) of one prompt per phase, question and answer at their ceiling."""
    config: ArenaConfig = loaded.config
    templates = ArenaTemplates.from_files(root=loaded.root, paths=config.prompts.paths())
    names = [player.name for player in config.players]
    question_tokens = (
        max(config.tokens(n, "generate") for n in names) // config.questions_per_player
    )
    answer_tokens = max(config.tokens(n, "answer") for n in names)
    # with tricks: the longest slot list any player gets, and every rated or judged question
    # a trick whose note is as long as a question (ceilings)
    q = config.questions_per_player
    slots = max(
        (trick_slots(seed=config.seed, player=n, n=q, tricks=config.tricks) for n in names),
        key=lambda found: len(trick_instruction(found)),
    )
    trick = Trick(kind="false_premise", note="") if slots else None
    note_tokens = question_tokens if slots else 0
    tokens = {
        "generate": _tokens(
            render_generate(
                templates,
                n=config.questions_per_player,
                categories=tuple(config.categories),
                tricks=slots,
            )
        ),
        "rate": _tokens(render_rate(templates, question="", trick=trick))
        + question_tokens
        + note_tokens,
        "answer": _tokens(render_answer(templates, question="")) + question_tokens,
        "judge": _tokens(render_judge(templates, question="", answer="", trick=trick))
        + question_tokens
        + note_tokens
        + answer_tokens,
        "self_assess": _tokens(render_self_assess(templates, question="", answer=""))
        + question_tokens
        + answer_tokens,
    }
    if config.judging != "absolute":
        template = (loaded.root / config.pairing.prompt).read_text(encoding="utf-8")
        longest = max(names, key=len)
        authors = (longest, longest) if config.pairing.reveal_names else None
        shown = render_pairwise(template, question="", first="", second="", authors=authors)
        tokens["pairwise"] = _tokens(shown) + question_tokens + 2 * answer_tokens
    tokens["rationale"] = tokens["judge"] + _tokens(
        render_rationale("", score=10)
    )  # the judging prompt, then the follow-up
    return tokens


def _diversity_text(config: ArenaConfig) -> str:
    diversity = config.diversity
    if diversity is None:
        return "off"
    embedding = diversity.embedding
    return (
        f"{embedding.provider}/{embedding.model} embeddings, near duplicate at cosine >= "
        f"{diversity.near_duplicate:g}, bonus weight {diversity.weight:g}"
    )


def _tokens(text: str) -> int:
    return (len(text) + 3) // 4


def estimate_arena(loaded: LoadedConfig) -> CallEstimate:
    """Calls, tokens and cost per model of ``loaded``'s tournament (see the module)."""
    config: ArenaConfig = loaded.config
    prices = price_table(config)
    per_call = phase_prompt_tokens(loaded)
    estimate = CallEstimate(
        unit="one per player and item of a phase, before re-asks",
        batch_price_factor=config.batches.price_factor,
    )
    for phase in plan_calls(config):
        if phase.phase == "embed":  # the embedder's requests, not the players' (unpriced)
            continue
        batch_phase = "judge" if phase.phase == "rationale" else phase.phase
        taking_part = [p for p in config.players if _takes_part(p, batch_phase)]
        shares = _shares(config, phase, n=len(taking_part))
        for index, player in enumerate(taking_part):
            share = shares[player.name] if phase.phase == "pairwise" else shares[index]
            estimate.add(
                provider=player.provider,
                model=player.model,
                calls=share,
                max_retries=config.max_retries,
                transport_retries=player.transport.max_retries,
                tokens_in_per_call=per_call[phase.phase],
                max_tokens=config.tokens(player.name, phase.phase),
                prices=prices,
                reasoning_tokens=player.reasoning_budget(),
                batch=player.batch and batch_phase in config.batch_phases,
            )
    return estimate


def _shares(config: ArenaConfig, phase: PhaseCalls, *, n: int) -> Any:
    """A phase's calls per participant: pairwise calls counted per judge (by name), the
    others spread evenly over the ``n`` who take part (by position)."""
    if phase.phase == "pairwise":
        return pairwise_calls(config)
    return [phase.calls // n + (1 if index < phase.calls % n else 0) for index in range(n)]


def _takes_part(player: ArenaPlayerConfig, phase: str) -> bool:
    """Whether ``player``'s role takes part in ``phase`` (``rationale`` goes with ``judge``)."""
    if phase == "generate":
        return player.writes
    if phase in ("rate", "judge", "pairwise"):
        return player.evaluates
    return player.answers


def summary_lines(config: ArenaConfig, *, run_dir: Path) -> list[str]:
    """What ``pdbench validate`` and ``--dry-run`` print about a tournament."""
    mode = ", dev mode" if config.dev else ""
    qf = config.question_filter
    filter_text = {
        "none": "none (every question is answered)",
        "bottom_fraction": f"drop the bottom {qf.fraction:g} by normalised rating",
        "min_score": f"keep normalised rating >= {qf.min_score:g}",
    }[qf.kind]
    lines = [
        f"run_id {config.run_id}, seed {config.seed}{mode}, output {run_dir}",
        f"categories: {', '.join(config.categories)}",
        f"questions per player: {config.questions_per_player}, max retries: {config.max_retries}",
        f"question filter: {filter_text}; normalization: {config.normalization}",
        f"self-assessment: {'on' if config.self_assessment else 'off'}",
        *_judging_lines(config),
        _tricks_line(config),
        f"diversity: {_diversity_text(config)}",
        f"players ({len(config.players)}):",
    ]
    for player in config.players:
        detail = f"{player.provider}/{player.model}"
        if player.provider == "mock":
            detail += ", " + ", ".join(_planted_traits(player, tricks=bool(config.tricks.share)))
        role = "" if player.role == "player" else f" ({player.role} only)"
        lines.append(f"  {player.name}{role}: {detail}")
    return lines


def _judging_lines(config: ArenaConfig) -> list[str]:
    """The judging mode and pairing, when the run judges in pairs (nothing otherwise)."""
    if config.judging == "absolute":
        return []
    pairing = config.pairing
    scheme = {
        "all": "every pair of answers to a question",
        "reference": f"every answer against {pairing.reference}'s",
        "sample": f"{pairing.pairs_per_question} pairs per question, drawn",
    }[pairing.scheme]
    arms = [
        name
        for name, on in (
            ("position swap", pairing.position_swap),
            ("self arm", pairing.self_judging),
            ("name arm", pairing.reveal_names),
        )
        if on
    ]
    mode = "absolute scores and pairwise verdicts" if config.judging == "both" else "pairwise"
    return [f"judging: {mode}; pairs: {scheme}; {', '.join(arms) or 'blind, one order'}"]


def _tricks_line(config: ArenaConfig) -> str:
    tricks = config.tricks
    count = round(tricks.share * config.questions_per_player)
    if count == 0:
        return "tricks: off"
    return (
        f"tricks: {count} of {config.questions_per_player} questions per player "
        f"({', '.join(tricks.kinds)}); fell below {tricks.fell_below:g}"
    )


def _planted_traits(player: ArenaPlayerConfig, *, tricks: bool) -> list[str]:
    """A mock participant's planted traits, those its role acts on."""
    mock = player.mock
    traits = []
    for name, trait in planted_traits():
        if trait.label is None or not (trait.acts_as and getattr(player, trait.acts_as)):
            continue
        if (trait.shown == "planted" and not mock.is_planted(name)) or (
            trait.shown == "tricks" and not tricks
        ):
            continue
        value = getattr(mock, name)
        shown = value if isinstance(value, str) else format(value, "+g" if trait.signed else "g")
        traits.append(f"{trait.label} {shown}")
    return traits
