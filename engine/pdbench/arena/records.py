"""The records of the arena: a question, a rating of a question, an answer, a judgement, a
self-assessment, a person's vote on an answer, and the embedding of a question or answer.

Each but the vote and the embedding is the outcome of one call task
(:mod:`pdbench.arena.tasks`): the fields every outcome has (:class:`ArenaRecord`) come first,
as the engine writes them, then the record's own. A vote is written by the audience page
(:mod:`pdbench.arena.audience`); an embedding by the embed phase (:mod:`pdbench.arena.diversity`).

A pairwise judgement is one verdict of a judge on two answers to one question, written by
the pairwise judging phase or by ``pdbench import`` from another study's verdicts (the
Language Model Council's, PeerRank's). The answers are shown as A (``first``) and B
(``second``); the verdict is on a five-level scale.

The arena hands them to the core as :data:`ARENA_RECORDS` (:attr:`pdbench.game.Game.records`):
the JSON schema (``pdbench schema answers``) and the dbt source tables follow from the models.
"""

from __future__ import annotations

from typing import Literal

from pdbench.storage.records.fields import Count, Ordinal, Record, Score, stored_prompt
from pdbench.storage.records.files import RecordFile, RecordSource, declare_run_file

__all__ = [
    "ARENA_RECORDS",
    "AnswerRecord",
    "ArenaFiles",
    "ArenaRecord",
    "AudienceVoteRecord",
    "EmbeddingRecord",
    "JudgmentArm",
    "JudgmentRecord",
    "PairwiseJudgmentRecord",
    "QuestionRatingRecord",
    "QuestionRecord",
    "SelfAssessmentRecord",
    "Verdict",
]


class ArenaFiles:
    """The arena's files in a run directory (besides every run's,
    :class:`~pdbench.storage.records.files.RunFiles`)."""

    QUESTIONS = "questions.jsonl"
    QUESTION_RATINGS = "question_ratings.jsonl"
    ANSWERS = "answers.jsonl"
    JUDGMENTS = "judgments.jsonl"
    AUDIENCE_VOTES = "audience_votes.jsonl"
    SELF_ASSESSMENTS = "self_assessments.jsonl"
    EMBEDDINGS = "embeddings.jsonl"
    PAIRWISE_JUDGMENTS = "pairwise_judgments.jsonl"
    AUDIENCE_INVITES = declare_run_file("audience_invites.jsonl")
    """The audience page's invites (:mod:`pdbench.arena.audience.invites`): not a record."""


JudgmentArm = Literal["plain", "named", "fixed_order"]
"""How a judged answer was shown (:attr:`JudgmentRecord.arm`)."""


class ArenaRecord(Record):
    """What every arena record holds of the call task it comes from."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    attempts: Count
    """Attempts the task took (a re-ask after an unusable reply is one more)."""
    prompt_sha256: str
    """Of the attempt whose reply is recorded, as in ``calls.jsonl``."""
    prompt: str | None = stored_prompt()
    """The rendered prompt of that attempt; only with ``store_prompts``."""


class QuestionRecord(ArenaRecord):
    """One arena question kept after parsing and de-duplication (``questions.jsonl``)."""

    question_id: str
    """Opaque id: never derived from the author's name."""
    author: str
    """The player who wrote the question."""
    category: str
    """One of the config's categories."""
    text: str
    """The question."""
    position: Ordinal
    """1-based position in the author's list."""
    raw_line: str
    """The line of the generation reply the question was parsed from."""
    leaked_identities: list[str]
    """Identity terms the question contains (player names, models, makers, self-identification
    phrases), lowercase, sorted; empty when none (``pdbench.arena.leaks``)."""
    shown_text: str
    """The question as the other players were shown it: the text, or with ``identity_leaks:
    scrub`` the text with every leaked term replaced by ``[redacted]``."""
    is_void: bool
    """With ``identity_leaks: void``, a question that leaked: not rated or answered,
    excluded from scoring."""
    trick_kind: str | None = None
    """With ``tricks``, the kind of a trick question (``false_premise``, ``unanswerable``,
    ``ambiguous``, ``misleading``); null for an ordinary question."""
    trick_note: str | None = None
    """A trick question's private note of the correct handling, as its author wrote it
    (raters and judges are shown it, answerers never); null for an ordinary question or a
    trick whose author wrote none."""


class QuestionRatingRecord(ArenaRecord):
    """One rating of a question by a player who did not write it
    (``question_ratings.jsonl``)."""

    question_id: str
    """The question rated."""
    rater: str
    """The player who rated it."""
    score: Score | None
    """0..10, or null when the reply stayed invalid after every retry."""
    is_valid: bool
    """Whether the recorded reply held a score."""
    presentation_index: Count
    """0-based position of the question in this rater's shuffled order."""
    raw_reply: str
    """The recorded reply."""


class AnswerRecord(ArenaRecord):
    """One answer to a kept question (``answers.jsonl``)."""

    answer_id: str
    """Opaque id: never derived from the answerer's name."""
    question_id: str
    """The question answered."""
    answerer: str
    """The player who answered."""
    text: str
    """The answer; empty when the reply stayed invalid."""
    is_valid: bool
    """Whether the recorded reply was a usable (non-empty) answer."""
    truncated: bool | None = None
    """Whether the recorded reply was cut at the token limit: the answer is judged and scored
    as it stands, and flagged (its score may be the judges' verdict on half an answer); null
    when not recorded (lines of schema version 1)."""
    raw_reply: str
    """The recorded reply."""
    leaked_identities: list[str]
    """Identity terms the answer contains (player names, models, makers, self-identification
    phrases), lowercase, sorted; empty when none (``pdbench.arena.leaks``)."""
    shown_text: str
    """The answer as the other players were shown it: the text, or with ``identity_leaks:
    scrub`` the text with every leaked term replaced by ``[redacted]``."""
    is_void: bool
    """With ``identity_leaks: void``, an answer that leaked: not judged, excluded from
    scoring."""


class JudgmentRecord(ArenaRecord):
    """One judgement of an answer by a player who did not write it (``judgments.jsonl``)."""

    answer_id: str
    """The answer judged."""
    question_id: str
    """The question it answers."""
    judge: str
    """The player who judged."""
    score: Score | None
    """0..10, or null when the reply stayed invalid after every retry."""
    is_valid: bool
    """Whether the recorded reply held a score."""
    presentation_index: Count
    """0-based position of the answer in this judge's shuffled order."""
    raw_reply: str
    """The recorded reply."""
    rationale_asked: bool
    """Whether the score was extreme under ``rationales`` and the judge was asked why (a
    follow-up call, phase ``rationale``)."""
    rationale: str | None
    """The judge's one or two sentences of rationale; null when not asked or when no reply
    was usable."""
    arm: JudgmentArm = "plain"
    """How the answer was shown: ``plain`` (anonymous, in a shuffled order: the scored
    judgement), ``named`` (with the authors' model names) or ``fixed_order`` (anonymous, in
    one fixed order). Only ``plain`` judgements are scored; the others are the name and
    position arms (``arena_score_arms``). Lines without it are plain."""


class AudienceVoteRecord(Record):
    """One score a person gave an answer on the audience page (``audience_votes.jsonl``)."""

    vote_id: str
    """Unique id of the vote, drawn when the answer was shown; a vote sent twice keeps it,
    and is counted once."""
    run_id: str
    """The run's id (``run_id`` of the config)."""
    answer_id: str
    """The answer scored."""
    voter: str
    """Random id of the voter's browser session (never a name)."""
    score: Score
    """0..10."""
    created_at: str
    """When the vote was cast (ISO 8601 UTC)."""


class SelfAssessmentRecord(ArenaRecord):
    """One player's prediction of the score its own answer gets (``self_assessments.jsonl``)."""

    answer_id: str
    """The answer assessed (one of this player's valid answers)."""
    question_id: str
    """The question it answers."""
    answerer: str
    """The player who wrote the answer and predicted its score."""
    predicted_score: Score | None
    """The 0..10 score it expects from the judges, or null when the reply stayed invalid
    after every retry."""
    is_valid: bool
    """Whether the recorded reply held a score."""
    raw_reply: str
    """The recorded reply."""


class EmbeddingRecord(Record):
    """The embedding of one question or answer (``embeddings.jsonl``, with ``diversity``):
    every question and every valid answer, all by the one embedding model."""

    run_id: str
    """The run's id (``run_id`` of the config)."""
    kind: Literal["question", "answer"]
    """What was embedded."""
    item_id: str
    """The question's ``question_id`` or the answer's ``answer_id``."""
    question_id: str
    """The question (the item itself, or the question the answer answers)."""
    player: str
    """Who wrote the text (the question's author, the answer's answerer)."""
    provider: str
    """The embedding provider (``mock``, ``openai``, ``litellm``)."""
    embedding_model: str
    """The embedding model."""
    dim: Ordinal
    """Length of the vector."""
    vector: list[float]
    """The embedding, as the provider returned it (the mock's is L2-normalised)."""


Verdict = Literal["A>>B", "A>B", "A=B", "B>A", "B>>A"]


class PairwiseJudgmentRecord(ArenaRecord):
    """One verdict of a judge on two answers to one question (``pairwise_judgments.jsonl``)."""

    pair_id: str
    """The unordered pair of answers: both orders of a swapped pair share it."""
    question_id: str
    """The question both answers answer."""
    judge: str
    """The player (or imported model) who judged."""
    first_player: str
    """The author of the answer shown first (A)."""
    second_player: str
    """The author of the answer shown second (B)."""
    first_answer_id: str | None
    """The answer shown first; null when the source did not record it."""
    second_answer_id: str | None
    """The answer shown second; null when the source did not record it."""
    order_index: Count
    """0 for the pair's first order, 1 for the same pair asked again with A and B swapped."""
    is_named: bool
    """Whether the judge was shown the authors' model names (the ``named`` arm)."""
    verdict: Verdict | None
    """A>>B, A>B, A=B (tie), B>A or B>>A; null when the reply stayed invalid after every
    retry."""
    is_valid: bool
    """Whether the recorded reply held a verdict."""
    raw_reply: str
    """The recorded reply."""


ARENA_RECORDS = RecordSource(
    name="arena",
    description=(
        "The arena's raw records, one file per phase. A file not written yet (the question "
        "models run between rating and answering) reads as no rows."
    ),
    records=(
        RecordFile("questions", ArenaFiles.QUESTIONS, QuestionRecord),
        RecordFile("question_ratings", ArenaFiles.QUESTION_RATINGS, QuestionRatingRecord),
        RecordFile("answers", ArenaFiles.ANSWERS, AnswerRecord),
        RecordFile("judgments", ArenaFiles.JUDGMENTS, JudgmentRecord),
        RecordFile("audience_votes", ArenaFiles.AUDIENCE_VOTES, AudienceVoteRecord),
        RecordFile("self_assessments", ArenaFiles.SELF_ASSESSMENTS, SelfAssessmentRecord),
        RecordFile("embeddings", ArenaFiles.EMBEDDINGS, EmbeddingRecord),
        RecordFile("pairwise_judgments", ArenaFiles.PAIRWISE_JUDGMENTS, PairwiseJudgmentRecord),
    ),
)
"""The arena's records, as its dbt source ``arena`` declares them."""
