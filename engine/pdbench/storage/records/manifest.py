"""The record of the run itself (``run_manifest.json``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pdbench.storage.records.fields import SCHEMA_VERSION, GameName, Ordinal, RunStatus

__all__ = ["BatchRef", "ImportRecord", "RunManifest", "ShardRecord", "SourceFile"]


class BatchRef(BaseModel):
    """A batch submitted to a provider for a step of the run not yet done."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    batch_id: str
    """The provider's id of the batch."""
    provider: str
    """Provider name."""
    model: str
    """Model name as sent to the provider."""
    agent: str
    """Whose requests it holds (an arena player)."""
    phase: str
    """The step its requests belong to."""


class ShardRecord(BaseModel):
    """One chunk of a sharded run: a contiguous range of matches in plan order, played by one
    worker into its own folder ``shards/part-<part>/`` (:mod:`pdbench.storage.shards`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    part: int
    """0-based number of the chunk; the folder is ``shards/part-<part, 5 digits>``."""
    first_match: int
    """Plan index of the chunk's first match."""
    matches: int
    """Matches in the chunk."""
    planned_rounds: int
    """Rounds the chunk's matches are planned to play."""
    committed: bool = False
    """Whether the chunk's folder was committed (renamed into place whole)."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Records in the committed folder, as the run's ``counts``; empty until committed."""
    worker: str | None = None
    """``host-pid`` of the worker whose report marked the chunk committed; null until then,
    or when a resume found the chunk committed on disk."""


class SourceFile(BaseModel):
    """One file an imported run was read from."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str
    """The file, as given to ``pdbench import`` (resolved to an absolute path)."""
    sha256: str
    """sha256 of the file's bytes when it was read."""


class ImportRecord(BaseModel):
    """Where an imported run comes from (``pdbench import``)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    format: str
    """The import format (``csv``, ``fontana``, ``axelrod``, ...)."""
    sources: list[SourceFile]
    """Every file read, in the order read."""
    mapping: dict[Any, Any] | None = None
    """The mapping of the source's columns and labels, as used (formats that take one)."""


class RunManifest(BaseModel):
    """``run_manifest.json``: everything needed to reproduce and to aggregate a run.

    dbt reads ``metric_params`` (PD) and ``scoring`` (arena) from this file, so the SQL uses
    exactly the parameters the run recorded.
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    schema_version: Ordinal = SCHEMA_VERSION
    """Version of this record layout; a reader rejects versions it does not know."""
    run_id: str
    """The run's id (``run_id`` of the config)."""
    game: GameName
    """``pd`` or ``arena``."""
    status: RunStatus
    """``running``, ``completed``, ``failed`` or ``interrupted``."""
    seed: int
    """The run seed every other seed is derived from."""
    config_path: str
    """The config file the run was started from."""
    config_sha256: str
    """sha256 of the canonical JSON of the resolved config snapshot."""
    config: dict[Any, Any]
    """The resolved config (refs expanded, overrides applied); never holds a secret."""
    inputs: dict[str, str] = Field(default_factory=dict)
    """Every file read to load the config (the config, its refs, its prompt and persona
    files): path -> sha256 of its bytes. ``--resume`` refuses a run whose files changed."""
    endpoints: dict[str, list[Any]] = Field(default_factory=dict)
    """Config field of every LLM of a real provider -> the servers its calls go to, as
    resolved when the run started (``base_url``, else ``OPENAI_BASE_URL`` and the like from
    the environment or ``.env``, else the vendor's), without user, password or query."""
    metric_params: dict[Any, Any] = Field(default_factory=dict)
    """PD: ``{"collapse_k": 10, "collapse_threshold": 0.2, "bootstrap_n": 1000,
    "bootstrap_seed": ...}``."""
    scoring: dict[Any, Any] = Field(default_factory=dict)
    """Arena: normalisation method, question filter, bootstrap settings, players' planted
    traits."""
    versions: dict[str, str] = Field(default_factory=dict)
    """Installed version of each package that shapes the results."""
    git_commit: str | None = None
    """The commit checked out where the run started; null outside a git repository."""
    python: str
    """Python version."""
    platform: str
    """Operating system and machine."""
    started_at: str
    """When the run started (ISO 8601, UTC)."""
    finished_at: str | None = None
    """When the run ended; null while it runs."""
    resumed_at: list[str] = Field(default_factory=list)
    """When the run was resumed (``pdbench run --resume``), oldest first."""
    phases_done: list[str] = Field(default_factory=list)
    """Arena: the phases whose record file is complete, in play order (``--resume`` keeps
    them and replays the rest)."""
    batches: list[BatchRef] = Field(default_factory=list)
    """Batches submitted for the phases not yet done (batch mode): ``--resume`` reads their
    results instead of submitting their requests again."""
    failure: str | None = None
    """Why the run ended ``failed`` or ``interrupted`` (one line); null otherwise."""
    counts: dict[str, int] = Field(default_factory=dict)
    """Records written per file, e.g. ``{"rounds": 1200, "matches": 24}``."""
    shards: list[ShardRecord] = Field(default_factory=list)
    """PD on a cluster: the chunks of the run, in plan order; each holds its own
    ``rounds.jsonl``, ``matches.jsonl`` and ``calls.jsonl``. Empty: one file per record in the
    run directory."""
    source: Literal["played", "imported"] = "played"
    """``played`` by pdbench, or ``imported`` from another study's or harness's files
    (``pdbench import``)."""
    imported: ImportRecord | None = None
    """An imported run's format, source files (path and sha256) and mapping; null for a
    played run."""
