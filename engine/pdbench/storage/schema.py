"""Record types of every file in a run directory: the contract between engine and dbt.

A run directory (``data/runs/<run_id>/``) holds:

=============================  ===========================================================
file                           one line / row per
=============================  ===========================================================
``run_manifest.json``          the run (:class:`RunManifest`)
``rounds.jsonl``               PD round (:class:`RoundRecord`)
``matches.jsonl``              finished or aborted PD match (:class:`MatchRecord`)
``calls.jsonl``                provider call attempt, both games (:class:`CallRecord`)
``questions.jsonl``            arena question kept after parsing (:class:`QuestionRecord`)
``question_ratings.jsonl``     arena rating of a question by a non-author
                               (:class:`QuestionRatingRecord`)
``answers.jsonl``              arena answer of a kept question (:class:`AnswerRecord`)
``judgments.jsonl``            arena judgement of an answer by a non-author
                               (:class:`JudgmentRecord`)
``audience_votes.jsonl``       person's score of an arena answer (:class:`AudienceVoteRecord`)
``self_assessments.jsonl``     arena answerer's predicted score (:class:`SelfAssessmentRecord`)
``embeddings.jsonl``           embedding of an arena question or answer (:class:`EmbeddingRecord`)
``pairwise_judgments.jsonl``   arena verdict on two answers (:class:`PairwiseJudgmentRecord`)
``*.parquet``                  dbt marts (never written by the engine)
=============================  ===========================================================

The models live in :mod:`pdbench.storage.records`, with what follows from them: the key
order of written lines, the JSON schema (``pdbench schema <record>``) and the DuckDB column
types of the readers (dbt's sources, the viewer).

Conventions, relied on by the SQL models:

- ``round_index`` is 1-based: the first round of a match is round 1.
- ``replicate`` is 0-based: replicates are 0 .. n-1.
- Actions are the strings ``"C"`` and ``"D"``. An invalid reply is never stored as an action:
  the action column holds what was played (a configured fallback) and ``*_valid`` is false.
- Every record carries ``schema_version``; a reader rejects versions it does not know.
- Timestamps are ISO 8601 UTC strings with a ``Z`` suffix.
"""

from __future__ import annotations

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
from pdbench.storage.records.columns import duckdb_columns, line_keys
from pdbench.storage.records.fields import (
    SCHEMA_VERSION,
    Action,
    AgentKind,
    HorizonType,
    MatchStatus,
    RunStatus,
)
from pdbench.storage.records.files import RECORDS, RecordFile, RunFiles
from pdbench.storage.records.manifest import (
    BatchRef,
    ImportRecord,
    RunManifest,
    ShardRecord,
    SourceFile,
)
from pdbench.storage.records.pairwise import PairwiseJudgmentRecord, Verdict
from pdbench.storage.records.pd import MatchRecord, PromptPair, RoundRecord

__all__ = [
    "RECORDS",
    "SCHEMA_VERSION",
    "Action",
    "AgentKind",
    "AnswerRecord",
    "AudienceVoteRecord",
    "BatchRef",
    "CallRecord",
    "EmbeddingRecord",
    "HorizonType",
    "ImportRecord",
    "JudgmentRecord",
    "MatchRecord",
    "MatchStatus",
    "PairwiseJudgmentRecord",
    "PromptPair",
    "QuestionRatingRecord",
    "QuestionRecord",
    "RecordFile",
    "RoundRecord",
    "RunFiles",
    "RunManifest",
    "RunStatus",
    "SelfAssessmentRecord",
    "ShardRecord",
    "SourceFile",
    "Verdict",
    "duckdb_columns",
    "line_keys",
]
