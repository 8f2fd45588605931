"""A response-cache file that cannot serve is refused in one line naming it, never a
traceback mid-run: damaged pages, a ``responses`` table of another program, damage found
while the run plays."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from pdbench.errors import ConfigError
from pdbench.providers.base import Usage
from pdbench.providers.cache import CachedReply, ResponseCache

from tests.conftest import write_experiment
from tests.e2e.test_resume_and_secrets import pdbench

MOVE_IT = r"move or delete the file"


def filled(path: Path, rows: int = 400) -> Path:
    cache = ResponseCache(path)
    for i in range(rows):
        cache.put(f"key-{i:05d}", CachedReply("reply " * 40 + str(i), Usage(10, 1, 0.0)))
    cache.close()
    (path.parent / f"{path.name}-wal").unlink(missing_ok=True)
    return path


def damaged(path: Path) -> Path:
    data = bytearray(path.read_bytes())
    page = 4096
    assert len(data) > 8 * page
    data[3 * page : 5 * page] = b"\xa5" * (2 * page)  # two b-tree pages overwritten
    path.write_bytes(bytes(data))
    return path


def test_a_cache_with_damaged_pages_is_refused_naming_the_file(tmp_path: Path):
    path = damaged(filled(tmp_path / "responses.sqlite"))
    with pytest.raises(ConfigError) as caught:
        ResponseCache(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and MOVE_IT in message
    assert message.startswith("cache_path: cannot use")


def test_a_foreign_responses_table_is_refused(tmp_path: Path):
    path = tmp_path / "theirs.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("create table responses (id integer primary key, body blob)")
        db.execute("insert into responses (body) values (x'00')")
    with pytest.raises(ConfigError, match=rf"{path}.*not pdbench's \(no column key\).*{MOVE_IT}"):
        ResponseCache(path)
    with sqlite3.connect(path) as db:  # left as it was: no column added
        columns = [row[1] for row in db.execute("pragma table_info(responses)")]
    assert columns == ["id", "body"]


def test_damage_found_while_the_run_plays_is_one_line(tmp_path: Path):
    path = filled(tmp_path / "responses.sqlite")
    cache = ResponseCache(path)
    cache._db.execute("drop table responses")  # another process wrecks it under the run
    for use in (lambda: cache.get("key-00001"), lambda: cache.put("k", CachedReply("C", Usage()))):
        with pytest.raises(ConfigError, match=rf"cannot use {path} .*{MOVE_IT}"):
            use()


def test_a_run_on_a_damaged_cache_ends_with_one_line(project: Path):
    damaged(filled(project / "responses.sqlite"))
    config = write_experiment(
        project / "configs",
        cache_path="responses.sqlite",
        conditions=[
            {
                "name": "llm_vs_tft",
                "agent_a": {"ref": "agents/llm_default.yaml", "overrides": {"cache": True}},
                "agent_b": {"ref": "agents/policies.yaml", "overrides": {"policy": "TFT"}},
            }
        ],
    )
    result = pdbench("run", str(config), "--no-aggregate", cwd=project)
    assert result.returncode == 2, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "responses.sqlite" in line and MOVE_IT in line
