"""Config files: pydantic models of every YAML file, and the loader that resolves them.

Loading a config (``load_config``) is the same for every game:

1. read the YAML (a syntax error names the file and line);
2. pick the model from ``game:`` (the games' registry, :mod:`pdbench.games`; default ``pd``);
3. resolve refs: a mapping ``{ref: "agents/llm_default.yaml", overrides: {...}}`` is replaced
   by that file (relative to the folder of the file that holds the ref) deep-merged with
   ``overrides``, so overrides are validated exactly like the file itself;
4. validate, with the config's folder as the root that relative paths (prompts, personas)
   are read from;
5. turn the first validation error into ONE line: ``<file>: <field path>: <message>``.

Payoff tables that are not a Prisoner's Dilemma are allowed, with a warning.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

try:
    from yaml.cyaml import CParser
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    CParser = None
from pydantic import (
    BaseModel,
    ValidationError,
)

from pdbench.config.base import (
    MAX_CONFIG_BYTES,
    MAX_YAML_ALIASES,
    MAX_YAML_DEPTH,
    MAX_YAML_VALUES,
    note_read,
    recording_reads,
)
from pdbench.config.validation_errors import RefSite, config_error, field_path
from pdbench.errors import ConfigError, unknown

"""``game:`` value -> the model of that game's experiment file (``arena`` is added at the end
of this module, once everything the arena config builds on is defined)."""


# ---------------------------------------------------------------------------------------------
# loading


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and what it took to get it."""

    path: str
    """The file as the user named it."""
    root: Path
    """Its folder: relative paths inside the config are read from here."""
    config: Any
    """The validated model (``ExperimentConfig`` for ``game: pd``, ``ArenaConfig`` for
    ``game: arena``)."""
    warnings: list[str] = field(default_factory=list)
    """One line each, ``<file>: <field>: <message>``."""
    inputs: dict[str, str] = field(default_factory=dict)
    """Every file read to load it (the config, its refs, its prompt and persona files):
    path -> sha256 of its bytes."""

    @property
    def snapshot(self) -> dict[str, Any]:
        """The resolved config as JSON data (refs expanded, overrides applied)."""
        model: BaseModel = self.config
        return model.model_dump(mode="json")


def _display(path: str | os.PathLike[str]) -> str:
    return os.path.normpath(os.fspath(path))


def read_yaml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A YAML file that must hold a mapping; errors name the file (and line). Duplicate keys,
    more than ``MAX_YAML_ALIASES`` aliases, nesting deeper than ``MAX_YAML_DEPTH`` and files
    over ``MAX_CONFIG_BYTES`` are refused."""
    shown = _display(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", path=shown) from None
    except OSError as exc:
        raise ConfigError(f"cannot read the file: {exc.strerror or exc}", path=shown) from None
    note_read(path, data)
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"the file is {len(data):,} bytes; a config holds at most {MAX_CONFIG_BYTES:,}",
            path=shown,
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (byte {exc.start})", path=shown) from None
    try:
        content = yaml.load(text, Loader=_StrictLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"invalid YAML: {problem}", path=shown, field=where) from None
    except ValueError as exc:  # an integer of thousands of digits
        problem = str(exc).split(":")[0].splitlines()[0]
        raise ConfigError(f"invalid YAML: {problem}", path=shown) from None
    if content is None:
        raise ConfigError("the file is empty", path=shown)
    if not isinstance(content, dict):
        raise ConfigError("expected a mapping of keys at the top level", path=shown)
    return content


if yaml.__with_libyaml__:

    class _SafeBase(Composer, CParser, SafeConstructor, Resolver):  # type: ignore[misc]
        """libyaml's scanner and parser (8x faster than PyYAML's) under PyYAML's own composer,
        so that the composing below can be bounded, and its safe constructor."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            Composer.__init__(self)

else:  # pragma: no cover - PyYAML built without libyaml
    _SafeBase = yaml.SafeLoader  # type: ignore[misc]


class _StrictLoader(_SafeBase):
    """A safe loader refusing duplicate keys and bounding aliases, depth and expanded size."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, f"more than {MAX_YAML_ALIASES} aliases (*name)", mark
                )
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_YAML_DEPTH} levels", mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_document(self) -> Any:
        node = super().compose_document()
        if _expanded_size(node, {}) > MAX_YAML_VALUES:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"expands to more than {MAX_YAML_VALUES:,} values through its aliases",
                node.start_mark,
            )
        return node

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                continue
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _expanded_size(node: Any, sizes: dict[int, int]) -> int:
    """Values in ``node`` with every alias expanded; each shared node is sized once."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    sizes[id(node)] = size
    return size


def deep_merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``overrides`` applied: mappings merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _ref_target(
    node: dict[str, Any], *, file: str, where: str, chain: tuple[str, ...]
) -> tuple[str, dict[str, Any]]:
    """The file a ``{ref, overrides}`` mapping in ``file`` (at field ``where``) brings in, and
    its overrides, once the mapping is checked: only those two keys, a path to an existing
    file relative to the folder of ``file``, no cycle through ``chain``."""
    extra = sorted(set(node) - {"ref", "overrides"})
    if extra:
        raise ConfigError(
            f"a ref takes only 'ref' and 'overrides', not {extra[0]!r}", path=file, field=where
        )
    ref = node["ref"]
    overrides = node.get("overrides") or {}
    if not isinstance(ref, str) or not ref:
        raise ConfigError("ref must be a relative file path", path=file, field=f"{where}.ref")
    if not isinstance(overrides, dict):
        raise ConfigError("overrides must be a mapping", path=file, field=f"{where}.overrides")
    target = _display(Path(os.path.dirname(file)) / ref)
    if target in chain:
        raise ConfigError(f"refs form a cycle through {ref}", path=file, field=f"{where}.ref")
    if not Path(target).is_file():
        folder = os.path.dirname(file) or "."
        raise ConfigError(
            f"file not found: {ref} (resolved against {folder}/, the folder of {file}: {target})",
            path=file,
            field=f"{where}.ref",
        )
    return target, overrides


def resolve_refs(
    node: Any,
    *,
    file: str,
    loc: tuple[str | int, ...] = (),
    sites: list[RefSite] | None = None,
    chain: tuple[str, ...] = (),
    files: dict[str, dict[str, Any]] | None = None,
) -> Any:
    """``node`` with every ``{ref, overrides}`` mapping replaced by the merged file content.

    ``file`` is the (displayed) file holding ``node``; refs are relative to its folder.
    Expanded refs are appended to ``sites`` so errors can name the file a value came from.
    ``files`` keeps each referenced file as read, so a file many conditions refer to is read
    once (resolving builds new containers and never changes what it read).
    """
    if sites is None:
        sites = []
    if files is None:
        files = {}
    if isinstance(node, list):
        return [
            resolve_refs(item, file=file, loc=(*loc, i), sites=sites, chain=chain, files=files)
            for i, item in enumerate(node)
        ]
    if not isinstance(node, dict):
        return node
    if "ref" not in node:
        return {
            key: resolve_refs(
                value, file=file, loc=(*loc, key), sites=sites, chain=chain, files=files
            )
            for key, value in node.items()
        }
    target, overrides = _ref_target(node, file=file, where=field_path(loc), chain=chain)
    if target not in files:
        files[target] = read_yaml(target)
    content = resolve_refs(
        files[target], file=target, loc=loc, sites=sites, chain=(*chain, file), files=files
    )
    sites.append(RefSite(loc=loc, file=target, overrides=overrides))
    return deep_merge(content, overrides)


def load_file(
    path: str | os.PathLike[str], *, models: Mapping[str, type[BaseModel]], default: str
) -> LoadedConfig:
    """Read, resolve and validate the experiment file at ``path`` with the model of the game
    its ``game:`` names (``models``: game name -> config model; ``default`` when absent)."""
    with recording_reads() as inputs:
        loaded = _load_file(path, models=models, default=default)
    return replace(loaded, inputs=dict(sorted(inputs.items())))


def _load_file(
    path: str | os.PathLike[str], *, models: Mapping[str, type[BaseModel]], default: str
) -> LoadedConfig:
    file = _display(path)
    raw = read_yaml(path)
    game = raw.get("game", default)
    model = models.get(game) if isinstance(game, str) else None
    if model is None:
        raise ConfigError(unknown("game", game, models), path=file, field="game")
    sites: list[RefSite] = []
    resolved = resolve_refs(raw, file=file, sites=sites)
    root = Path(os.path.dirname(file) or ".")
    context: dict[str, Any] = {"root": root, "warnings": []}
    try:
        config = model.model_validate(resolved, context=context)
    except ValidationError as exc:
        raise config_error(exc, file=file, sites=sites, model=model) from None
    # one agent file referenced by many conditions would say the same thing many times
    warnings = list(
        dict.fromkeys(f"{file}: {where}: {message}" for where, message in context["warnings"])
    )
    return LoadedConfig(path=file, root=root, config=config, warnings=warnings)
