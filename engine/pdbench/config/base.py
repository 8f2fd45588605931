"""What every config model is built on: strict models, tagged unions, names, seeds and the
limits a config may ask for (docs/guarantees.md), and reading a text file a config names."""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import os
import re
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
)

from pdbench.errors import unknown
from pdbench.redact import looks_like_key

NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
"""A key or name that needs no quoting in an error (and, for a persona, stays in its folder)."""

# Limits on what a config may ask for: each guards against a typo or a hostile file that would
# hang or exhaust the machine before anything useful happens. docs/guarantees.md.
MAX_CONFIG_BYTES = 1 << 20
"""A config or agent file larger than 1 MiB is refused."""
MAX_YAML_ALIASES = 100
"""YAML aliases (``*name``) per file: a handful are handy, thousands are a "billion laughs"."""
MAX_YAML_DEPTH = 50
"""Nesting depth of a YAML document."""
MAX_YAML_VALUES = 100_000
"""Values of a YAML document once its aliases are expanded (nine aliases to a list of nine
aliases, eight deep, would be 43 million)."""
MAX_NAME_LENGTH = 100
"""Characters of a run id (it names a directory)."""
MAX_MATCHES = 1_000_000
"""Default cap on conditions x replicates (``max_matches`` raises it)."""
MAX_ROUNDS_PER_MATCH = 100_000_000
"""Rounds of one match (a fixed horizon's ``n``, a geometric horizon's ``max_rounds``)."""
MAX_PAYOFF = 1e12
"""Largest payoff magnitude: running totals stay exact-enough finite floats."""
Seed = Annotated[int, Field(strict=True, ge=-(2**63), lt=2**63)]
"""A seed: an integer (not a boolean, not a string) that fits in 64 bits."""
TAG_PREFIX = "<tag>"


def run_id_problem(run_id: str) -> str | None:
    """What makes ``run_id`` unfit to be a run's id, or None. A run id names folders
    (``data/runs/<run_id>``, a series' ``tournaments/<k>-<run_id>``) and is shown in pages and
    tables, so it is a plain name: not empty, at most :data:`MAX_NAME_LENGTH` characters, no
    path separator, no ``..``, no leading dot, no control character. The one check of every
    run id, whoever gives it (a config, ``pdbench import --run-id``)."""
    if not run_id:
        return "a run id cannot be empty"
    if len(run_id) > MAX_NAME_LENGTH:
        return f"a run id has at most {MAX_NAME_LENGTH} characters (this one {len(run_id)})"
    if "/" in run_id or "\\" in run_id:
        return "a run id is a plain name, without / or \\"
    if ".." in run_id:
        return "a run id is a plain name, without .."
    if run_id.startswith("."):
        return "a run id cannot start with a dot"
    if not run_id.isprintable():
        return "a run id cannot hold a control character (a line break, a tab, ...)"
    return None


def check_run_id(run_id: str) -> str:
    """``run_id`` if it is a run id (:func:`run_id_problem`); a ``ValueError`` otherwise."""
    problem = run_id_problem(run_id)
    if problem is not None:
        raise ValueError(problem)
    return run_id


RunId = Annotated[
    str,
    Field(pattern=NAME_PATTERN, max_length=MAX_NAME_LENGTH),
    AfterValidator(check_run_id),
]
"""A config's ``run_id``: letters, digits, ``_``, ``.`` and ``-`` (:data:`NAME_PATTERN`), and
a run id (:func:`check_run_id`)."""


class StrictModel(BaseModel):
    """Base of every config model: unknown keys are errors, field docstrings are docs."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)


def tagged_union(*models: type[BaseModel], key: str = "type") -> Any:
    """A union of models told apart by their ``key`` field (a ``Literal``).

    Error paths stay readable: the tag never shows up in them (see ``_field_path``).
    """
    tags: dict[str, type[BaseModel]] = {}
    for model in models:
        (tag,) = model.model_fields[key].annotation.__args__  # type: ignore[union-attr]
        tags[tag] = model

    def pick(value: Any) -> str | None:
        tag = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
        return f"{TAG_PREFIX}{tag}" if isinstance(tag, str) and tag in tags else None

    members = tuple(Annotated[m, Tag(f"{TAG_PREFIX}{t}")] for t, m in tags.items())
    return Annotated[
        members[0] if len(members) == 1 else _union(members),
        Discriminator(
            pick,
            custom_error_type="invalid_tag",
            custom_error_message=f"{key} must be one of: {', '.join(tags)}",
        ),
    ]


def _union(members: tuple[Any, ...]) -> Any:
    from typing import Union

    return Union[members]  # noqa: UP007 - built from a runtime tuple


_ENV_VAR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_var_name(name: str | None) -> str | None:
    """``name`` if it is the NAME of an environment variable (the check of every
    ``api_key_env``); a ``ValueError`` that never quotes it otherwise: a key pasted there
    must not reach the terminal either."""
    if name is None:
        return None
    if looks_like_key(name) or not _ENV_VAR.match(name):
        raise ValueError(
            "must be the NAME of an environment variable holding the key (e.g. "
            "OPENAI_API_KEY), never the key itself: put the key in the environment or .env"
        )
    return name


def one_of(what: str, known: Collection[str]) -> AfterValidator:
    """The check of a field whose value must be one of ``known`` (a role, a provider, a
    strategy), failing as :func:`pdbench.errors.unknown` words it."""

    def check(value: str) -> str:
        if value not in known:
            raise ValueError(unknown(what, value, known))
        return value

    return AfterValidator(check)


ApiKeyEnv = Annotated[str | None, AfterValidator(env_var_name)]
"""An ``api_key_env`` field: the NAME of the environment variable that holds a key, checked
by :func:`env_var_name`."""


def config_root(info: ValidationInfo) -> Path:
    return Path(info.context["root"]) if info.context else Path.cwd()


_files_read: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar(
    "files_read", default=None
)


@contextlib.contextmanager
def recording_reads() -> Iterator[dict[str, str]]:
    """Within the block, every file a config reads (itself, its refs, its prompt and persona
    files) is noted in the yielded dict: path -> sha256 of the bytes read. A run keeps them in
    its manifest, and ``--resume`` refuses a file whose bytes changed."""
    files: dict[str, str] = {}
    token = _files_read.set(files)
    try:
        yield files
    finally:
        _files_read.reset(token)


def note_read(path: str | os.PathLike[str], data: bytes) -> None:
    """Note that ``data`` was read from ``path`` (see :func:`recording_reads`)."""
    files = _files_read.get()
    if files is not None:
        files[os.path.normpath(os.fspath(path))] = hashlib.sha256(data).hexdigest()


def read_text_file(path: Path, *, shown: str) -> str:
    """A prompt or persona file as text; a ``ValueError`` naming it (``shown``) when it is not
    UTF-8, is larger than ``MAX_CONFIG_BYTES`` or cannot be read."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
    note_read(path, data)
    if len(data) > MAX_CONFIG_BYTES:
        raise ValueError(
            f"{shown}: {len(data):,} bytes; a prompt holds at most {MAX_CONFIG_BYTES:,}"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{shown}: not UTF-8 text (byte {exc.start})") from None
