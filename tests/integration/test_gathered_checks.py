"""The YAML data tests of the games' models run gathered: every one of them is in exactly one
of the tests that gather them (dbt_project/tests/assert_*_checks_hold.sql), so that leaving
the single nodes out of a build (`pdbench aggregate`) leaves no check out."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pdbench.storage.dbt import DBT_PROJECT_DIR

GAMES = ("pd", "arena", "series")
CONTENT_TAGS = {"pd_round_robin", "pd_fingerprint", "pd_comparisons", "pd_calls"}


@pytest.fixture(scope="module")
def manifest(tmp_path_factory: pytest.TempPathFactory) -> dict:
    target = tmp_path_factory.mktemp("dbt_target")
    dbt = str(Path(sys.executable).with_name("dbt"))
    project = str(DBT_PROJECT_DIR)
    arguments = [dbt, "parse", "--project-dir", project, "--profiles-dir", project, "--quiet"]
    arguments += ["--target-path", str(target), "--log-path", str(target / "logs")]
    done = subprocess.run(
        arguments,
        capture_output=True,
        text=True,
        env={**os.environ, "PDBENCH_RUN_DIR": str(target)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((target / "manifest.json").read_text(encoding="utf-8"))


def _upstream(nodes: dict, start: list[str]) -> set[str]:
    seen: set[str] = set()
    queue = list(start)
    while queue:
        current = queue.pop()
        if current not in seen and current in nodes:
            seen.add(current)
            queue.extend(nodes[current]["depends_on"]["nodes"])
    return seen


def _gatherers(nodes: dict) -> dict[str, tuple[set[str], str | None]]:
    """Each gathering test -> (the models upstream of it, its content tag or None)."""
    gatherers = {}
    for unique_id, node in nodes.items():
        found = re.search(r"gathered_checks\(\s*(?:'([a-z_]+)')?\s*\)", node.get("raw_code", ""))
        if node["resource_type"] == "test" and not node.get("test_metadata") and found:
            gatherers[unique_id] = (_upstream(nodes, node["depends_on"]["nodes"]), found[1])
    return gatherers


def test_every_yaml_check_of_a_game_is_gathered_exactly_once(manifest: dict) -> None:
    nodes = manifest["nodes"]
    gatherers = _gatherers(nodes)
    assert len(gatherers) >= 7  # pd (and one per content tag), arena, series
    checks = [
        node
        for node in nodes.values()
        if node["resource_type"] == "test"
        and node.get("test_metadata")
        and set(GAMES) & set(nodes[node["attached_node"]]["tags"])
    ]
    assert len(checks) > 300
    for check in checks:
        assert "gathered" in check["tags"], check["name"]
        if check["config"]["severity"].lower() == "warn":
            continue
        model = nodes[check["attached_node"]]
        takers = [
            name
            for name, (upstream, tag) in gatherers.items()
            if check["attached_node"] in upstream and (tag is None or tag in model["tags"])
        ]
        # a pd model also read by arena (stg_calls) is checked by a test of each game
        games = {tag for tag in model["tags"] if tag in GAMES}
        assert len(takers) == len(games), (check["name"], takers)


def test_a_pd_gathering_test_without_a_content_tag_reads_no_model_with_one(
    manifest: dict,
) -> None:
    """dbt leaves out the tests of a model it excludes: a pd gathering test that read a model
    with a content tag would be left out of every run without that content."""
    nodes = manifest["nodes"]
    for name, (upstream, tag) in _gatherers(nodes).items():
        if tag is None and "pd" in nodes[name]["tags"]:
            tagged = [u for u in upstream if CONTENT_TAGS & set(nodes[u]["tags"])]
            assert not tagged, (name, tagged)
