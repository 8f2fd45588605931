"""Names are shown as text on every page: a run id, a run folder, a condition, an agent or a
player named with Markdown or HTML (an image, a link, a tag, a formula, an emoji shortcode)
never becomes one, in a title, a header, a caption, a note, an expander or a tile's label.

The test copies the session's runs into a folder with a hostile name, gives every name in
their raw files, manifest and marts a hostile suffix (the marts' manifest written again, so the
copy's tables stay current), walks every page of the viewer with AppTest, and checks that no
element rendered as Markdown holds the markup unescaped, while each name is on the page.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from pdbench import cli
from pdbench.model_text import escaped
from pdbench.storage.marts_manifest import write_marts_manifest
from pdbench.storage.schema import RunFiles
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S

NAME_KEYS = {
    "run_id", "condition", "agent_a_name", "agent_b_name", "agent", "agent_name", "player",
    "author", "rater", "answerer", "judge",
}  # fmt: skip
"""Record fields holding a name someone chose."""
NOT_NAMES = {"agent_a", "agent_b", "a", "b", "A", "B", "C", "D", "llm", "policy", "embedder", ""}
"""Values of those fields that are sides, actions or kinds, not names (``embedder``: who made
the embedding calls of ``calls.jsonl``)."""
FOLDER = "run <img src=x onerror=alert(1)> $x$ :smile: `tick"
"""A folder name a shared run may carry (no slash, and no glob character)."""
BREACHES = [
    re.compile(pattern)
    for pattern in (
        r"(?<!\\)!\[",  # an image
        r"(?<!\\)\]\(https?:",  # a link
        r"(?<!\\)<(img|script)",  # a tag
        r"(?<!\\)\$x",  # a formula
        r"(?<!\\):smile",  # an emoji shortcode
        r"(?<!\\)\*\*bold",  # emphasis
    )
]
"""Markup that would form (an escaped character is preceded by a backslash)."""


def _hostile(name: str, index: int) -> str:
    return (
        f"{name} ![{index}](https://evil.example/{index}.png) [l](https://evil.example/) "
        f"<img src=https://evil.example/{index}.png> $x$ :smile: **bold**"
    )


def _names(run: Path) -> dict[str, str]:
    """Every name of ``run``'s raw records and manifest -> its hostile version."""
    found: set[str] = set()

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in NAME_KEYS and isinstance(item, str) and item not in NOT_NAMES:
                    found.add(item)
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    found.add(json.loads((run / RunFiles.MANIFEST).read_text(encoding="utf-8"))["run_id"])
    for path in run.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                collect(json.loads(line))
    return {name: _hostile(name, index) for index, name in enumerate(sorted(found))}


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, dict):
        return {key: _renamed(item, names) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, names) for item in value]
    return value


def _hostile_copy(run: Path, to: Path) -> tuple[Path, dict[str, str]]:
    shutil.copytree(run, to)
    names = _names(to)
    manifest = to / RunFiles.MANIFEST
    manifest.write_text(
        json.dumps(_renamed(json.loads(manifest.read_text(encoding="utf-8")), names)),
        encoding="utf-8",
    )
    for path in to.glob("*.jsonl"):
        lines = [
            json.dumps(_renamed(json.loads(line), names))
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    for path in to.glob("*.parquet"):
        table = pq.read_table(path)
        for i, field in enumerate(table.schema):
            kind = field.type
            if pa.types.is_dictionary(kind):
                kind = kind.value_type
            if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
                continue
            column = pc.cast(table.column(i), kind) if kind != field.type else table.column(i)
            values = [None if v is None else names.get(v, v) for v in column.to_pylist()]
            table = table.set_column(i, field.name, pa.array(values, type=kind))
        pq.write_table(table, path)
    write_marts_manifest(to)
    return to, names


def _rendered_as_markdown(at: AppTest) -> list[str]:
    """Every text Streamlit renders as Markdown: elements, labels and tooltips."""
    kinds = (
        "title", "header", "subheader", "markdown", "caption", "info", "warning", "success",
        "error",
    )  # fmt: skip
    texts = [str(e.value) for kind in kinds for e in getattr(at, kind)]
    for kind in ("expander", "tabs", "metric", "selectbox", "radio", "multiselect", "button"):
        for element in getattr(at, kind):
            texts += [
                str(getattr(element, "label", "") or ""),
                str(getattr(element, "help", "") or ""),
            ]
    for radio in at.radio:
        texts += [str(option) for option in radio.options]
    return texts


def _check(at: AppTest, seen: set[str]) -> None:
    assert not at.exception, [e.message for e in at.exception]
    for text in _rendered_as_markdown(at):
        for breach in BREACHES:
            assert not breach.search(text), text
        seen.update(name for name in _SHOWN if escaped(name) in text)
    plain = [str(c.value) for c in at.code]
    plain += [
        str(o)
        for kind in ("selectbox", "multiselect")
        for e in getattr(at, kind)
        for o in e.options
    ]
    seen.update(name for name in _SHOWN if any(name in text for text in plain))


_SHOWN: set[str] = set()
"""The hostile names of the copy being walked (set by each test)."""


def _app(monkeypatch: pytest.MonkeyPatch, run_dir: Path) -> AppTest:
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_dir)])
    at = AppTest.from_file(cli.STREAMLIT_APP, default_timeout=SAFETY_NET_S)
    at.run()
    return at


def _walk(at: AppTest, key: str, seen: set[str], *, pickers: tuple[str, ...]) -> None:
    """Every page of the sidebar radio ``key``; on each, every option of the ``pickers``."""
    for page in at.radio(key=key).options:
        at.radio(key=key).set_value(page).run()
        _check(at, seen)
        for picker in pickers:
            found = [e for e in at.selectbox if e.key == picker]
            if not found:
                continue
            for option in found[0].options:
                at.selectbox(key=picker).set_value(option).run()
                _check(at, seen)


def test_every_pd_page_shows_hostile_names_as_text(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir, names = _hostile_copy(pd_run, tmp_path / FOLDER)
    _SHOWN.clear()
    _SHOWN.update(names.values())
    seen: set[str] = set()
    at = _app(monkeypatch, run_dir)
    run_id = names[json.loads((pd_run / RunFiles.MANIFEST).read_text())["run_id"]]
    assert escaped(run_id) in [t.value for t in at.title]
    assert any(escaped(str(run_dir)) in c.value for c in at.caption)
    _check(at, seen)
    _walk(at, "pd_page", seen, pickers=("condition", "fit_agent"))
    assert seen == set(names.values()), set(names.values()) - seen


def test_every_arena_page_shows_hostile_player_names_as_text(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir, names = _hostile_copy(arena_run, tmp_path / FOLDER)
    _SHOWN.clear()
    _SHOWN.update(names.values())
    seen: set[str] = set()
    at = _app(monkeypatch, run_dir)
    _check(at, seen)
    _walk(at, "arena_page", seen, pickers=("question",))
    assert seen == set(names.values()), set(names.values()) - seen


def test_the_run_list_shows_hostile_names_as_text(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = tmp_path / "runs <img src=x> $x$"
    folder.mkdir()
    _hostile_copy(pd_run, folder / FOLDER)
    at = _app(monkeypatch, folder)
    _check(at, set())
    assert any(escaped(str(folder)) in c.value for c in at.caption)
