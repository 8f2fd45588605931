"""Model text is shown as text on every page: an answer, a question, a trick note, a rationale
or a reply holding Markdown or HTML never becomes a link, an image or a tag.

The test copies the session's runs, puts hostile text into every field a model writes (raw
files and marts alike), walks every page of the viewer and the audience page with AppTest,
and checks that no element rendered as Markdown holds the hostile text unescaped, while the
text itself is on the page as plain text.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pdbench import cli
from pdbench.arena.audience.invites import issue_invites
from pdbench.model_text import escaped
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S

HOSTILE = (
    "![](https://evil.example/pixel.png) <img src=https://evil.example/y.png> "
    "[click](https://evil.example/) <script>fetch('https://evil.example')</script> :red[x] $x$"
)
MODEL_TEXT = {"text", "shown_text", "trick_note", "rationale", "answer_text", "question_text"}
BREACHES = [re.compile(p) for p in (r"(?<!\\)!\[", r"(?<!\\)\]\(https?:", r"(?<!\\)<(img|script)")]
"""Markup that would form: an image, a link, an HTML tag (an escaped one is preceded by \\)."""


def _hostile_copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to)
    for path in to.glob("*.jsonl"):
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for name in MODEL_TEXT & record.keys():
                if isinstance(record[name], str):
                    record[name] = f"{HOSTILE} {record[name]}"
            if isinstance(record.get("raw_responses"), dict):
                record["raw_responses"] = {
                    side: [f"{HOSTILE} {reply}" for reply in replies]
                    for side, replies in record["raw_responses"].items()
                }
            lines.append(json.dumps(record))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for path in to.glob("*.parquet"):
        table = pq.read_table(path)
        for i, name in enumerate(table.column_names):
            if name in MODEL_TEXT or name.endswith("_text") or name == "trick_note":
                values = [None if v is None else f"{HOSTILE} {v}" for v in table[name].to_pylist()]
                table = table.set_column(i, name, pa.array(values, type=pa.string()))
        pq.write_table(table, path)
    return to


def _rendered_as_markdown(at: AppTest) -> list[str]:
    """The texts of every element Streamlit renders as Markdown, labels included."""
    kinds = ("markdown", "caption", "info", "warning", "success", "error", "subheader", "header")
    texts = [e.value for kind in kinds for e in getattr(at, kind)]
    texts += [e.label for e in at.expander]
    return [str(t) for t in texts]


def _check(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    for text in _rendered_as_markdown(at):
        assert not any(breach.search(text) for breach in BREACHES), text


def _shown_as_text(at: AppTest) -> bool:
    plain = [c.value for c in at.code] + _rendered_as_markdown(at)
    return any(HOSTILE in t or escaped(HOSTILE) in t for t in plain)


def _app(
    monkeypatch: pytest.MonkeyPatch, app: str, run_dir: Path, invite: str | None = None
) -> AppTest:
    monkeypatch.setattr(sys, "argv", [Path(app).name, "--run-dir", str(run_dir)])
    at = AppTest.from_file(app, default_timeout=SAFETY_NET_S)
    if invite is not None:
        at.query_params["invite"] = invite
    at.run()
    return at


def test_every_arena_page_shows_hostile_text_as_text(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = _hostile_copy(arena_run, tmp_path / "run")
    at = _app(monkeypatch, cli.STREAMLIT_APP, run_dir)
    _check(at)
    seen = False
    for page in at.radio(key="arena_page").options:
        at.radio(key="arena_page").set_value(page).run()
        _check(at)
        if page == "Questions":
            for question in at.selectbox(key="question").options:
                at.selectbox(key="question").set_value(question).run()
                _check(at)
                seen = seen or _shown_as_text(at)
    assert seen, "the hostile text was never on the page: nothing was tested"


def test_the_round_inspector_shows_hostile_replies_as_text(
    pd_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = _hostile_copy(pd_run, tmp_path / "run")
    at = _app(monkeypatch, cli.STREAMLIT_APP, run_dir)
    for page in at.radio(key="pd_page").options:
        at.radio(key="pd_page").set_value(page).run()
        _check(at)
    at.radio(key="pd_page").set_value("Match").run()
    for condition in at.selectbox(key="condition").options:
        at.selectbox(key="condition").set_value(condition).run()
        _check(at)
        if _shown_as_text(at):
            return
    pytest.fail("no hostile reply was on the page: nothing was tested")


def test_the_audience_page_shows_hostile_text_as_text(
    arena_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    run_dir = _hostile_copy(arena_run, tmp_path / "run")
    # a voter's page: the ballot shows only through an invite of the run
    (token,) = issue_invites(run_dir, 1)
    at = _app(monkeypatch, str(cli.AUDIENCE_APP), run_dir, invite=token)
    _check(at)
    assert [c.value.startswith(HOSTILE) for c in at.code] == [True, True]


def test_escaped_text_keeps_its_characters_and_forms_no_markup():
    text = "a*b* _c_ `d` ![](https://x/y.png) <b>e</b> :red[f] $g$ \\h\nnext line"
    out = escaped(text)
    assert not any(breach.search(out) for breach in BREACHES)
    # every punctuation character is escaped: no emphasis, code, colour or formula can form
    unescaped = re.sub(r"\\[!-/:-@\[-`{-~]", "", out.replace("  \n", "\n"))
    assert not re.search(r"[!-/:-@\[-`{-~]", unescaped), unescaped
    # removing each escape gives the text back (a line break: Markdown's hard break)
    assert re.sub(r"\\(.)", r"\1", out.replace("  \n", "\n")) == text
