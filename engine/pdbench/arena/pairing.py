"""Which pairs of answers pairwise judges are shown (``judging: pairwise`` or ``both``).

For each question, the answerers whose answer is valid (and not void), in config order,
are paired under ``pairing.scheme``:

- ``all``: every pair, n (n - 1) / 2 of them;
- ``reference``: the reference player's answer against each other one, n - 1 of them (none
  when the reference has no valid answer to the question);
- ``sample``: ``pairs_per_question`` of the ``all`` pairs (all of them when there are fewer),
  drawn from the stream ``(seed, "pairing", question_id)``, kept in the ``all`` order.

Every pair is judged by every evaluator (roles ``player`` and ``judge``) who wrote neither
answer; with ``self_judging`` also by the evaluators who wrote one. Which answer a judge sees
first is a coin from ``(seed, "pairwise order", question_id, first author, second author,
judge)``; ``position_swap`` asks the pair again in the other order (``order_index`` 1), and
``reveal_names`` asks every showing once more with the authors' names (``is_named``). So per
question and pair, a judge is asked 1, 2 or 4 times.

Everything here depends on the seed, the question id and the names only, so the dry run
counts exactly the showings the run asks (:mod:`pdbench.arena.plan`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from pdbench.arena.pairwise_config import PairingConfig
from pdbench.config.base import read_text_file
from pdbench.errors import unknown
from pdbench.rng import derive_seed, stream
from pdbench.templates import template_problem

__all__ = [
    "PAIRWISE_PLACEHOLDERS",
    "PairShowing",
    "pair_id",
    "pairing_problem",
    "question_pairs",
    "showings",
]

PAIRWISE_PLACEHOLDERS = frozenset(
    {"question", "first_answer", "second_answer", "output_instruction"}
)
"""Every placeholder the pairwise template must use (and the only ones it may use)."""


@dataclass(frozen=True, slots=True)
class PairShowing:
    """One pairwise judgement to ask: a judge, a question and two authors' answers in the
    order shown."""

    judge: str
    question_id: str
    first: str
    """The author of the answer shown first (A)."""
    second: str
    """The author of the answer shown second (B)."""
    order_index: int
    """0 the pair's first order, 1 the same pair swapped (``position_swap``)."""
    is_named: bool
    """Whether the answers are labelled with their authors (``reveal_names``)."""


def pair_id(question_id: str, first: str, second: str) -> str:
    """The unordered pair: both orders share it (the shape the imports write)."""
    low, high = sorted((first, second))
    return f"{question_id}:{low}|{high}"


def question_pairs(
    question_id: str, authors: Sequence[str], *, pairing: PairingConfig, seed: int
) -> list[tuple[str, str]]:
    """The pairs of ``authors`` (in their order) whose answers to ``question_id`` are
    compared (see the module docstring)."""
    if pairing.scheme == "reference":
        reference = pairing.reference
        if reference is None or reference not in authors:
            return []
        return [(reference, author) for author in authors if author != reference]
    every = list(combinations(authors, 2))
    if pairing.scheme == "all":
        return every
    budget = pairing.pairs_per_question or 0
    if budget >= len(every):
        return every
    drawn = sorted(stream(seed, "pairing", question_id).sample(range(len(every)), budget))
    return [every[index] for index in drawn]


def showings(
    question_id: str,
    authors: Sequence[str],
    *,
    judges: Sequence[str],
    pairing: PairingConfig,
    seed: int,
) -> Iterator[PairShowing]:
    """Every judgement asked on ``question_id``'s answers by ``authors``: pair by pair, judge
    by judge (in ``judges``' order), blind before named, order 0 before order 1."""
    for pair in question_pairs(question_id, authors, pairing=pairing, seed=seed):
        for judge in judges:
            if judge in pair and not pairing.self_judging:
                continue
            coin = derive_seed(seed, "pairwise order", question_id, *pair, judge) % 2
            first, second = pair if coin == 0 else pair[::-1]
            orders = [(first, second)] + ([(second, first)] if pairing.position_swap else [])
            for is_named in (False, True) if pairing.reveal_names else (False,):
                for order_index, (a, b) in enumerate(orders):
                    yield PairShowing(
                        judge=judge,
                        question_id=question_id,
                        first=a,
                        second=b,
                        order_index=order_index,
                        is_named=is_named,
                    )


def pairing_problem(
    pairing: PairingConfig, *, answerers: Sequence[str], root: Path, judging: str
) -> str | None:
    """Why ``pairing`` does not fit its scheme or the players, or (when the run judges in
    pairs) its template is not usable; None when it is fine."""
    reference, budget = pairing.reference, pairing.pairs_per_question
    if pairing.scheme == "reference" and reference is None:
        return "pairing.reference: scheme reference needs the reference player's name"
    if pairing.scheme != "reference" and reference is not None:
        return "pairing.reference: only scheme reference takes a reference player"
    if pairing.scheme == "sample" and budget is None:
        return "pairing.pairs_per_question: scheme sample needs a budget of pairs"
    if pairing.scheme != "sample" and budget is not None:
        return "pairing.pairs_per_question: only scheme sample takes a budget"
    if reference is not None and reference not in answerers:
        return "pairing.reference: " + unknown("player who answers", reference, answerers)
    if judging == "absolute":
        return None
    path = root / pairing.prompt
    if not path.is_file():
        return f"pairing.prompt: prompt file not found: {pairing.prompt}"
    text = read_text_file(path, shown=pairing.prompt)
    problem = template_problem(text, PAIRWISE_PLACEHOLDERS, required=PAIRWISE_PLACEHOLDERS)
    return f"pairing.prompt: {pairing.prompt}: {problem}" if problem else None
