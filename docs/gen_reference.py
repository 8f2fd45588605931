"""The reference pages of the documentation site, generated from the code at build time.

mkdocs loads this file as a hook (``hooks:`` in ``mkdocs.yml``); its ``on_files`` adds the
pages below to the site, so none of them is ever written by hand or kept in the repository:

- ``reference/cli.md``: ``pdbench <command> -h`` of every command, as Typer prints it;
- ``reference/config_pd.md``, ``reference/config_arena.md``: every field of each game's
  config, from the pydantic models and the docstring under each field;
- ``reference/records.md``: every record of a run directory (``pdbench schema``), its file
  and its keys, from the record models;
- ``reference/marts_pd.md``, ``reference/marts_arena.md``, ``reference/marts_pairwise.md``:
  every dbt mart and its columns, from the models' YAML.

``uv run python docs/gen_reference.py cli`` (or ``config_pd``, ``config_arena``, ``records``,
``marts_pd``, ``marts_arena``, ``marts_pairwise``) prints one.
"""

from __future__ import annotations

import functools
import sys
import types
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

REPO = Path(__file__).resolve().parents[1]
MARTS_DIR = REPO / "dbt_project" / "models" / "marts"


def _cell(text: str | None) -> str:
    """``text`` fit for one cell of a Markdown table."""
    if not text:
        return ""
    return " ".join(text.split()).replace("|", "\\|")


# ---------------------------------------------------------------------------------------------
# the command line


def cli_commands() -> list[str]:
    """Every command of ``pdbench``, in the order ``pdbench -h`` lists them."""
    from pdbench.cli import app

    return [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]


def _help(words: list[str]) -> str:
    from pdbench.cli import app
    from typer.testing import CliRunner

    # the width of the help (rich reads COLUMNS): wide enough for the boxes to keep their
    # lines, narrow enough for a page
    result = CliRunner().invoke(app, [*words, "-h"], prog_name="pdbench", env={"COLUMNS": "100"})
    if result.exit_code != 0:
        raise RuntimeError(f"pdbench {' '.join(words)} -h failed: {result.output}")
    return "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")


def cli_page() -> str:
    parts = [
        "# Command line",
        "",
        "Every command of `pdbench`, with the help it prints for `-h` (generated from the "
        "command line itself when this site is built). What each command does, with worked "
        "examples: [Get started](../install.md) and the guides.",
        "",
        "## pdbench",
        "",
        "```text",
        _help([]),
        "```",
    ]
    for command in cli_commands():
        parts += ["", f"## pdbench {command}", "", "```text", _help([command]), "```"]
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------
# the configs


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    """The pydantic models an annotation names, at any depth (lists, unions, Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    for arg in typing.get_args(annotation):
        yield from _models_in(arg)


def _anchor(model: type[BaseModel]) -> str:
    """The id of a model's section: two games may each have a ``BootstrapConfig``."""
    return f"{model.__module__}.{model.__name__}".replace(".", "-").replace("_", "-").lower()


def _type_name(annotation: Any) -> str:
    """A short, readable type: ``list[ConditionConfig]``, ``int | None``."""
    if annotation is type(None):
        return "None"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is typing.Literal:
        return " \\| ".join(f"`{a!r}`".replace("'", '"') for a in args)
    if origin in (typing.Union, types.UnionType):
        return " \\| ".join(_type_name(a) for a in args)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return f"[{annotation.__name__}](#{_anchor(annotation)})"
    if origin is not None:
        name = getattr(origin, "__name__", str(origin))
        return f"{name}[{', '.join(_type_name(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation)).replace("|", "\\|")


def _default(field: Any) -> str:
    if field.is_required():
        return "required"
    if field.default_factory is not None:
        try:
            value = field.default_factory()
        except TypeError:
            return "(computed)"
        if isinstance(value, BaseModel):
            return "(defaults of its fields)"
    else:
        value = field.default
    if value is PydanticUndefined:
        return "required"
    return f"`{value!r}`"


def config_models(root: type[BaseModel]) -> list[type[BaseModel]]:
    """``root`` and every model its fields name, at any depth, each once, in the order met."""
    seen: list[type[BaseModel]] = []
    queue = [root]
    while queue:
        model = queue.pop(0)
        if model in seen:
            continue
        seen.append(model)
        for field in model.model_fields.values():
            queue.extend(m for m in _models_in(field.annotation) if m not in seen)
    return seen


def _model_section(model: type[BaseModel], level: str) -> list[str]:
    lines = [f"{level} {model.__name__} {{#{_anchor(model)}}}", "", f"`{model.__module__}`", ""]
    doc = (model.__doc__ or "").strip()
    if doc:
        lines += [" ".join(doc.split("\n\n", 1)[0].split()), ""]
    lines += ["| key | type | default | meaning |", "| --- | --- | --- | --- |"]
    for name, field in model.model_fields.items():
        key = field.alias or name
        lines.append(
            f"| `{key}` | {_type_name(field.annotation)} | {_cell(_default(field))} "
            f"| {_cell(field.description)} |"
        )
    return [*lines, ""]


def config_page(game_name: str) -> str:
    """Every key of game ``game_name``'s experiment file (one page per game: both on one
    page would pass 40 KB)."""
    from pdbench.games import GAMES

    game = GAMES[game_name]
    parts = [
        f"# Config files: {game.title}",
        "",
        f"Every key of an experiment file with `game: {game_name}`, generated from the "
        "pydantic models that validate it and the docstring under each field. Unknown keys "
        "are errors everywhere. How to write one: [PD configs](../pd_configs.md), "
        "[arena tournaments](../arena.md).",
        "",
        f"## Game `{game_name}`: {game.config_model.__name__}",
        "",
    ]
    for model in config_models(game.config_model):
        parts += _model_section(model, "###")
    return "\n".join(parts)


def config_pages() -> dict[str, Callable[[], str]]:
    """The config reference's pages, one per game, by URI."""
    from pdbench.games import GAMES

    return {f"reference/config_{name}.md": functools.partial(config_page, name) for name in GAMES}


# ---------------------------------------------------------------------------------------------
# the records


def _schema_type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    if "anyOf" in prop:
        return " \\| ".join(_schema_type(p) for p in prop["anyOf"])
    if "enum" in prop:
        return " \\| ".join(f"`{v!r}`".replace("'", '"') for v in prop["enum"])
    if "const" in prop:
        return f"`{prop['const']!r}`".replace("'", '"')
    kind = prop.get("type", "any")
    if kind == "array":
        return f"array of {_schema_type(prop.get('items', {}))}"
    return str(kind)


def records_page() -> str:
    from pdbench.games import records

    known = records()
    parts = [
        "# Records of a run directory",
        "",
        "Every file the engine writes into a run directory, one record per line (the manifest: "
        "one per run), generated from the record models that `pdbench schema` prints as JSON "
        "schema. Keys are listed in the order the engine writes them. What the files mean "
        "together: [the run directory](../run_directory.md).",
        "",
        "| record | file |",
        "| --- | --- |",
    ]
    parts += [f"| [`{r.name}`](#{r.name.replace('_', '-')}) | `{r.file}` |" for r in known.values()]
    for record in known.values():
        schema = record.model.model_json_schema()
        required = set(schema.get("required", ()))
        parts += [
            "",
            f"## {record.name.replace('_', '-')}",
            "",
            f"`{record.file}`, `pdbench schema {record.name}`: "
            + " ".join((record.model.__doc__ or "").strip().split("\n\n", 1)[0].split()),
            "",
            "| key | type | required | meaning |",
            "| --- | --- | --- | --- |",
        ]
        for key, prop in schema.get("properties", {}).items():
            parts.append(
                f"| `{key}` | {_cell(_schema_type(prop))} | {'yes' if key in required else ''} "
                f"| {_cell(prop.get('description'))} |"
            )
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------------------------------------
# the marts


@functools.cache
def mart_models() -> dict[str, list[dict[str, Any]]]:
    """The mart models of each folder (``pd``, ``arena``, ``series``), from their YAML; a
    model whose ``config.meta`` names a ``reference_group`` (the pairwise judging marts of the
    arena: ``arena_pairwise``) in that group instead."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    found: dict[str, list[dict[str, Any]]] = {}
    for folder in sorted(p for p in MARTS_DIR.iterdir() if p.is_dir()):
        found.setdefault(folder.name, [])
        for path in sorted(folder.glob("*.yml")):
            document = yaml.load(path.read_text(encoding="utf-8"), Loader=loader) or {}
            for model in document.get("models") or []:
                meta = (model.get("config") or {}).get("meta") or {}
                if "name" in model:
                    found.setdefault(meta.get("reference_group", folder.name), []).append(model)
    return {group: sorted(models, key=lambda m: m["name"]) for group, models in found.items()}


def mart_file(model: str) -> str:
    """The Parquet file of a mart model (``mart_location()`` in ``macros/run_dir.sql``)."""
    prefix = model.split("_", 1)[0] + "_"
    return (model[len(prefix) :] if prefix in ("pd_", "arena_") else model) + ".parquet"


def marts_page(title: str, folders: tuple[str, ...]) -> str:
    """The marts of ``folders`` (of ``dbt_project/models/marts/``) and their columns."""
    parts = [
        f"# {title}",
        "",
        "Every metric table dbt writes into a run directory (the `series` marts: into the "
        "folder of `pdbench leaderboard`), with its columns, generated from the models' "
        "YAML in `dbt_project/models/marts/`. A mart's file is its model's name without the "
        "game prefix. The definitions behind the numbers: [PD metrics](../metrics.md), "
        "[arena scoring](../arena_scoring.md).",
    ]
    models_of = mart_models()
    for folder in folders:
        parts += ["", f"## {folder.replace('_', ' ')}"]
        for model in models_of.get(folder, []):
            parts += [
                "",
                f"### {model['name']}",
                "",
                f"File `{mart_file(model['name'])}`. {_cell(model.get('description'))}",
            ]
            columns = model.get("columns") or []
            if columns:
                parts += ["", "| column | meaning |", "| --- | --- |"]
                parts += [
                    f"| `{c['name']}` | {_cell(c.get('description'))} |"
                    for c in columns
                    if "name" in c
                ]
    return "\n".join(parts) + "\n"


MART_PAGES = {
    "reference/marts_pd.md": ("Marts of a Prisoner's Dilemma run", ("pd",)),
    "reference/marts_arena.md": ("Marts of an arena run", ("arena",)),
    "reference/marts_pairwise.md": (
        "Marts of pairwise judging and of a series",
        ("arena_pairwise", "series"),
    ),
}
"""Each page of marts: its title and the folders of ``dbt_project/models/marts/`` it shows
(one page would pass 40 KB)."""


# ---------------------------------------------------------------------------------------------
# the hook

PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_page,
    **config_pages(),
    "reference/records.md": records_page,
    **{
        uri: (lambda title=title, folders=folders: marts_page(title, folders))
        for uri, (title, folders) in MART_PAGES.items()
    },
}


def on_files(files: Any, config: Any) -> Any:
    """mkdocs hook: add the generated pages to the site."""
    from mkdocs.structure.files import File

    for uri, page in PAGES.items():
        files.append(File.generated(config, uri, content=page()))
    return files


if __name__ == "__main__":
    names = {uri.split("/")[-1].removesuffix(".md"): page for uri, page in PAGES.items()}
    if len(sys.argv) != 2 or sys.argv[1] not in names:
        sys.exit(f"usage: python docs/gen_reference.py {{{','.join(names)}}}")
    sys.stdout.write(names[sys.argv[1]]())
