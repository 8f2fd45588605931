"""The documentation site builds with ``mkdocs build --strict`` (every page in the navigation,
every link and anchor resolving, zero warnings), the README's links land on its pages, no page
passes 40 KB, and the generated reference covers every command, config key, record key and
mart of the code.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from pdbench.arena.marts import ArenaMart, SeriesMart
from pdbench.cli import app
from pdbench.games import GAMES, records
from pdbench.pd.marts import PDMart

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
MAX_PAGE_BYTES = 40 * 1024


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_reference", DOCS / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly (a warning fails the build) into a folder of its own."""
    site_dir = tmp_path_factory.mktemp("site")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return site_dir


def _nav_pages(entries: list) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_navigation_once() -> None:
    nav = _nav_pages(yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    written = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert written | set(GEN.PAGES) == set(nav)
    assert len(nav) == len(set(nav))


def test_the_site_builds_strictly(site: Path) -> None:
    for page in (
        "index.html",
        "reference/cli.html",
        "reference/config_pd.html",
        "reference/config_arena.html",
        "metrics.html",
    ):
        assert (site / page).is_file(), page


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(value for name, value in attrs if name == "id" and value)


def _ids(html: Path) -> set[str]:
    parser = _Ids()
    parser.feed(html.read_text(encoding="utf-8"))
    return parser.ids


def test_every_link_of_the_readme_lands(site: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", readme)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert local, "the README links to no page of the docs"
    for link in local:
        path, _, anchor = link.partition("#")
        assert (REPO / path).is_file(), link
        if anchor:
            assert path.startswith("docs/") and path.endswith(".md"), link
            html = site / path.removeprefix("docs/").replace(".md", ".html")
            assert anchor in _ids(html), link


def test_no_page_passes_40_kb() -> None:
    sizes = {p.name: p.stat().st_size for p in [REPO / "README.md", *DOCS.rglob("*.md")]}
    sizes |= {uri: len(page().encode()) for uri, page in GEN.PAGES.items()}
    assert {name: size for name, size in sizes.items() if size > MAX_PAGE_BYTES} == {}


def test_the_readme_is_short() -> None:
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 200


def test_the_reference_shows_every_command() -> None:
    page = GEN.cli_page()
    commands = [c.name or c.callback.__name__ for c in app.registered_commands]
    assert len(commands) >= 10
    for command in commands:
        assert f"\n## pdbench {command}\n" in page, command
        assert f"Usage: pdbench {command} " in page, command


def _section(page: str, heading: str) -> str:
    start = page.index(heading)
    end = page.find("\n#", start + len(heading))
    return page[start : end if end != -1 else len(page)]


def test_the_reference_shows_every_config_key() -> None:
    counted = 0
    for name, game in GAMES.items():
        page = GEN.config_page(name)
        for model in GEN.config_models(game.config_model):
            section = _section(page, f"### {model.__name__} {{#")
            for name, field in model.model_fields.items():
                assert f"| `{field.alias or name}` |" in section, (model.__name__, name)
                counted += 1
    # both games' configs, their agents and players, the provider settings they share
    assert counted > 150


def test_the_reference_shows_every_record_key() -> None:
    page = GEN.records_page()
    for record in records().values():
        section = _section(page, f"\n## {record.name.replace('_', '-')}\n")
        keys = record.model.model_json_schema()["properties"]
        assert keys, record.name
        for key in keys:
            assert f"| `{key}` |" in section, (record.name, key)


def test_the_reference_shows_every_mart() -> None:
    pages = "".join(page() for uri, page in GEN.PAGES.items() if "marts" in uri)
    files = {m.value for enum in (PDMart, ArenaMart, SeriesMart) for m in enum}
    shown = set(re.findall(r"^File `([a-z_0-9]+\.parquet)`", pages, re.M))
    assert shown == files


def test_every_config_key_and_mart_column_has_a_description() -> None:
    undescribed = {
        f"config {model.__name__}.{name}"
        for game in GAMES.values()
        for model in GEN.config_models(game.config_model)
        for name, field in model.model_fields.items()
        if not (field.description or "").strip()
    }
    for models in GEN.mart_models().values():
        for model in models:
            assert (model.get("description") or "").strip(), model["name"]
            undescribed |= {
                f"mart {model['name']}.{column['name']}"
                for column in model.get("columns") or []
                if not (column.get("description") or "").strip()
            }
    assert undescribed == set()
