"""The files of a run directory, and the record each holds."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from pdbench.storage.records.arena import (
    AnswerRecord,
    AudienceVoteRecord,
    EmbeddingRecord,
    JudgmentRecord,
    QuestionRatingRecord,
    QuestionRecord,
    SelfAssessmentRecord,
)
from pdbench.storage.records.calls import CallRecord
from pdbench.storage.records.manifest import RunManifest
from pdbench.storage.records.pairwise import PairwiseJudgmentRecord
from pdbench.storage.records.pd import MatchRecord, RoundRecord

__all__ = ["RECORDS", "RecordFile", "RunFiles"]


class RunFiles:
    """File names inside a run directory."""

    MANIFEST = "run_manifest.json"
    ROUNDS = "rounds.jsonl"
    MATCHES = "matches.jsonl"
    CALLS = "calls.jsonl"
    QUESTIONS = "questions.jsonl"
    QUESTION_RATINGS = "question_ratings.jsonl"
    ANSWERS = "answers.jsonl"
    JUDGMENTS = "judgments.jsonl"
    AUDIENCE_VOTES = "audience_votes.jsonl"
    SELF_ASSESSMENTS = "self_assessments.jsonl"
    EMBEDDINGS = "embeddings.jsonl"
    PAIRWISE_JUDGMENTS = "pairwise_judgments.jsonl"


@dataclass(frozen=True)
class RecordFile:
    """A raw record: its name (``pdbench schema <name>``, the dbt source table), the file of
    the run directory that holds it, and its model."""

    name: str
    file: str
    model: type[BaseModel]


RECORDS: dict[str, RecordFile] = {
    record.name: record
    for record in (
        RecordFile("rounds", RunFiles.ROUNDS, RoundRecord),
        RecordFile("matches", RunFiles.MATCHES, MatchRecord),
        RecordFile("calls", RunFiles.CALLS, CallRecord),
        RecordFile("questions", RunFiles.QUESTIONS, QuestionRecord),
        RecordFile("question_ratings", RunFiles.QUESTION_RATINGS, QuestionRatingRecord),
        RecordFile("answers", RunFiles.ANSWERS, AnswerRecord),
        RecordFile("judgments", RunFiles.JUDGMENTS, JudgmentRecord),
        RecordFile("audience_votes", RunFiles.AUDIENCE_VOTES, AudienceVoteRecord),
        RecordFile("self_assessments", RunFiles.SELF_ASSESSMENTS, SelfAssessmentRecord),
        RecordFile("embeddings", RunFiles.EMBEDDINGS, EmbeddingRecord),
        RecordFile("pairwise_judgments", RunFiles.PAIRWISE_JUDGMENTS, PairwiseJudgmentRecord),
        RecordFile("manifest", RunFiles.MANIFEST, RunManifest),
    )
}
"""Every record the engine writes, by name, in the order ``pdbench schema`` lists them."""
