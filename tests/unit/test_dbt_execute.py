"""Building a compiled dbt project on DuckDB (pdbench.dbt_build.execute), on a project made
by hand: the materializations' statements, dbt's data-test semantics, selection, and where
compilations are kept (pdbench.dbt_build.compilation)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
from pdbench.dbt_build import compilation as dbt_compile
from pdbench.dbt_build.compilation import CompiledProject, Node, RecordFile, extract
from pdbench.dbt_build.execute import execute
from pdbench.dbt_build.request import DbtRequest
from pdbench.dbt_build.schedule import plan, selected
from pdbench.errors import AggregationError

ROUNDS = RecordFile("rounds.jsonl", required=True)
EXTRA = RecordFile("extra.jsonl", required=False)


def _model(name: str, sql: str, *, materialized: str = "view", reads: tuple[str, ...] = (),
           tags: tuple[str, ...] = ("g",), **config: object) -> Node:  # fmt: skip
    return Node(
        unique_id=f"model.p.{name}",
        resource_type="model",
        name=name,
        tags=tags,
        materialized=materialized,
        depends_on=tuple(f"model.p.{r}" for r in reads),
        compiled_code=sql,
        relation_name=f'"memory"."main"."{name}"',
        config=dict(config),
    )


def _test(name: str, sql: str, model: str, **config: object) -> Node:
    return Node(
        unique_id=f"test.p.{name}.0123456789",
        resource_type="test",
        name=name,
        tags=(),
        materialized="test",
        depends_on=(f"model.p.{model}",),
        compiled_code=sql,
        relation_name="",
        config=dict(config),
        attached_model=model,
    )


READ = (
    "select * from read_json(pdbench_files_rounds_jsonl(), format = 'newline_delimited', "
    "columns = {'n': 'INTEGER'})"
)
EXTRA_READ = (
    "select * from read_json(pdbench_files_extra_jsonl(), format = 'newline_delimited', "
    "columns = {'n': 'INTEGER'})"
)


def _project(*tests: Node, extra: tuple[Node, ...] = ()) -> CompiledProject:
    nodes = (
        _model("stg_rounds", READ),
        _model("stg_extra", EXTRA_READ),
        _model(
            "int_doubled",
            'select n * 2 as n2 from "memory"."main"."stg_rounds"',
            materialized="table",
            reads=("stg_rounds",),
        ),
        _model(
            "g_totals",
            'select sum(n2) as total from "memory"."main"."int_doubled"',
            materialized="parquet_copy",
            reads=("int_doubled",),
            location="totals.parquet",
            row_group_size=16,
        ),
        _model(
            "g_nothing",
            'select n from "memory"."main"."stg_extra" where n > 100',
            materialized="parquet_copy",
            reads=("stg_extra",),
            location="nothing.parquet",
            tags=("g", "g_extra"),
        ),
        *extra,
        *tests,
    )
    return CompiledProject(nodes, (EXTRA, ROUNDS))


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "rounds.jsonl").write_text("".join(json.dumps({"n": n}) + "\n" for n in (1, 2, 3)))
    return run


def _rows(path: Path) -> list[tuple]:
    return duckdb.sql(f"select * from read_parquet('{path}')").fetchall()


def test_a_build_writes_each_mart_once_and_an_empty_query_as_no_row(run_dir: Path) -> None:
    results = execute(_project(), DbtRequest("build", run_dir=run_dir, select="tag:g"))
    assert _rows(run_dir / "totals.parquet") == [(12,)]  # (1 + 2 + 3) * 2
    assert _rows(run_dir / "nothing.parquet") == []  # extra.jsonl is absent: no row at all
    assert sorted(results.locations) == [str(run_dir / "nothing.parquet"),
                                         str(run_dir / "totals.parquet")]  # fmt: skip
    assert set(results.models) == {"stg_rounds", "stg_extra", "int_doubled", "g_totals",
                                   "g_nothing"}  # fmt: skip


def test_a_mart_left_out_is_written_with_its_columns_and_no_row(run_dir: Path) -> None:
    request = DbtRequest("build", run_dir=run_dir, select="tag:g", exclude="tag:g_extra",
                         empty_marts=("nothing.parquet", "totals.parquet"))  # fmt: skip
    results = execute(_project(), request)
    assert "g_nothing" not in results.models
    assert _rows(run_dir / "nothing.parquet") == []
    assert duckdb.sql(f"describe select * from '{run_dir / 'nothing.parquet'}'").fetchall()[0][
        :2
    ] == ("n", "INTEGER")
    assert _rows(run_dir / "totals.parquet") == [(12,)]  # built: not written over


def test_a_failing_test_names_itself_its_model_and_dbts_verdict(run_dir: Path) -> None:
    failing = _test("n_below_3", 'select * from "memory"."main"."stg_rounds" where n >= 3',
                    "stg_rounds")  # fmt: skip
    with pytest.raises(AggregationError) as caught:
        execute(_project(failing), DbtRequest("build", run_dir=run_dir, select="tag:g"))
    assert str(caught.value) == (
        f"dbt build failed on {run_dir.resolve()} (tag:g): test n_below_3 (stg_rounds): "
        "Got 1 result, configured to fail if != 0"
    )
    # what reads the failed model is skipped, as dbt skips it
    assert not (run_dir / "totals.parquet").exists()


@pytest.mark.parametrize(
    ("config", "verdict"),
    [
        ({}, "Got 2 results, configured to fail if != 0"),
        ({"severity": "warn"}, "warn"),  # a warning never fails a build, nor passes
        ({"error_if": "> 2"}, "warn"),  # 2 rows: not more than 2, but warn_if != 0 holds
        ({"error_if": "> 2", "warn_if": "> 2"}, "pass"),
        ({"error_if": "> 1"}, "Got 2 results, configured to fail if > 1"),
        ({"fail_calc": "sum(n)", "error_if": ">= 5"}, "Got 5 results, configured to fail if >= 5"),
        ({"limit": 1}, "Got 1 result, configured to fail if != 0"),
    ],
)
def test_data_tests_are_judged_as_dbt_judges_them(
    run_dir: Path, config: dict[str, object], verdict: str
) -> None:
    test = _test(
        "big", 'select * from "memory"."main"."stg_rounds" where n >= 2', "stg_rounds", **config
    )
    request = DbtRequest("build", run_dir=run_dir, select="stg_rounds")
    if verdict in ("pass", "warn"):
        assert execute(_project(test), request).n_checks_passed == (verdict == "pass")
        return
    with pytest.raises(AggregationError, match=f"test big \\(stg_rounds\\): {verdict}$"):
        execute(_project(test), request)


def test_a_run_folder_is_named_in_errors_by_its_own_path(tmp_path: Path) -> None:
    run = tmp_path / "it's [a] run"
    run.mkdir()
    (run / "rounds.jsonl").write_text('{"n": "three"}\n')
    with pytest.raises(AggregationError) as caught:
        execute(_project(), DbtRequest("run", run_dir=run, select="g_totals+ +g_totals"))
    message = str(caught.value)
    assert message.startswith(f"dbt run failed on {run.resolve()} (g_totals+ +g_totals): ")
    assert "model int_doubled: " in message  # the view stg_rounds is read by the table
    assert "pdbench-paths-" not in message  # the link DuckDB read it by is not named
    assert not list(tmp_path.rglob("*.parquet"))


def test_a_seed_is_read_from_its_own_file_whatever_its_folders_name(
    run_dir: Path, tmp_path: Path
) -> None:
    # a checkout in a folder named as a pattern, beside the folder the pattern matches
    for folder, value in (("seeds[1]", 7), ("seeds1", 1)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "s.csv").write_text(f"v\n{value}\n")
    seed = Node(
        unique_id="seed.p.s", resource_type="seed", name="s", tags=("g",), materialized="seed",
        depends_on=(), compiled_code="", relation_name='"memory"."main"."s"',
        seed_file=str(tmp_path / "seeds[1]" / "s.csv"),
    )  # fmt: skip
    mart = replace(
        _model("g_seeded", 'select v from "memory"."main"."s"', materialized="parquet_copy",
               location="seeded.parquet"),
        depends_on=(seed.unique_id,),
    )  # fmt: skip
    execute(CompiledProject((seed, mart), (ROUNDS,)), DbtRequest("build", run_dir, "tag:g"))
    assert _rows(run_dir / "seeded.parquet") == [(7,)]


def test_selection_follows_dbt_selectors() -> None:
    project = _project()
    assert selected(project, "+g_totals", None) == {
        "model.p.stg_rounds", "model.p.int_doubled", "model.p.g_totals"}  # fmt: skip
    assert selected(project, "stg_rounds+", None) == {
        "model.p.stg_rounds", "model.p.int_doubled", "model.p.g_totals"}  # fmt: skip
    assert selected(project, "tag:g", "tag:g_extra int_doubled") == {
        "model.p.stg_rounds", "model.p.stg_extra", "model.p.g_totals"}  # fmt: skip
    assert selected(project, "tag:g,tag:g_extra", None) == {"model.p.g_nothing"}


def test_each_node_built_failed_or_skipped_is_told_once_with_the_builds_size(
    run_dir: Path,
) -> None:
    failing = _test("never", 'select * from "memory"."main"."stg_rounds"', "stg_rounds")
    told: list[tuple[int, int, str]] = []
    request = DbtRequest(
        "build", run_dir=run_dir, select="+g_totals",
        on_node=lambda done, total, name: told.append((done, total, name)),
    )  # fmt: skip

    with pytest.raises(AggregationError):
        execute(_project(failing), request)

    # stg_rounds, its failing test, then int_doubled and g_totals skipped: four nodes
    assert [done for done, _, _ in told] == [1, 2, 3, 4]
    assert {total for _, total, _ in told} == {4}
    assert [name for _, _, name in told] == ["stg_rounds", "never", "int_doubled", "g_totals"]


def test_a_model_waits_for_the_tests_of_what_it_reads_as_dbt_build_orders_them() -> None:
    on_rounds = _test("positive", 'select * from "memory"."main"."stg_rounds" where n < 0',
                      "stg_rounds")  # fmt: skip
    waits = plan(_project(on_rounds), {"model.p.stg_rounds", "model.p.int_doubled",
                 "model.p.g_totals"}, with_tests=True)  # fmt: skip
    assert waits[on_rounds.unique_id] == {"model.p.stg_rounds"}
    # what reads the tested model, directly or not, waits for its test
    assert on_rounds.unique_id in waits["model.p.int_doubled"]
    assert on_rounds.unique_id in waits["model.p.g_totals"]
    assert waits["model.p.stg_rounds"] == set()


def test_a_test_reading_a_model_and_its_descendant_holds_back_no_model_between(
    run_dir: Path,
) -> None:
    """dbt adds a test before a node only when everything the test reads is upstream of the
    node: int_doubled, between stg_rounds and g_totals, must not wait for a test that reads
    g_totals (it would wait for itself)."""
    across = replace(
        _test(
            "totals_match",
            'select * from "memory"."main"."g_totals" where total != (select '
            'sum(n) * 2 from "memory"."main"."stg_rounds")',
            "g_totals",
        ),
        depends_on=("model.p.g_totals", "model.p.stg_rounds"),
        attached_model=None,
    )
    project = _project(across)
    waits = plan(project, selected(project, "+g_totals", None), with_tests=True)
    assert across.unique_id not in waits["model.p.int_doubled"]
    assert waits[across.unique_id] == {"model.p.g_totals", "model.p.stg_rounds"}

    results = execute(project, DbtRequest("build", run_dir=run_dir, select="+g_totals"))

    assert results.n_checks_passed == 1
    assert _rows(run_dir / "totals.parquet") == [(12,)]


def test_the_manifests_documented_fields_are_what_is_kept() -> None:
    manifest = {
        "nodes": {
            "model.p.m": {"unique_id": "model.p.m", "resource_type": "model", "name": "m",
                          "tags": ["g"], "config": {"materialized": "parquet_copy",
                          "location": "m.parquet", "enabled": True},
                          "depends_on": {"nodes": ["seed.p.s"]}, "compiled_code": "select 1",
                          "relation_name": '"memory"."main"."m"', "schema": "main"},
            "operation.p.p-on-run-start-1": {"unique_id": "operation.p.p-on-run-start-1",
                                             "resource_type": "operation", "name": "h1",
                                             "compiled_code": "select 2", "config": {}},
            "operation.p.p-on-run-start-0": {"unique_id": "operation.p.p-on-run-start-0",
                                             "resource_type": "operation", "name": "h0",
                                             "compiled_code": "select 1", "config": {}},
        },
        "seeds": {
            "seed.p.s": {"unique_id": "seed.p.s", "resource_type": "seed", "name": "s",
                         "root_path": "/project", "original_file_path": "seeds/s.csv",
                         "config": {"materialized": "seed", "column_types": {"a": "INTEGER"}},
                         "relation_name": '"memory"."main"."s"'},
        },
        "sources": {"source.p.run.x": {"identifier": "x.jsonl", "meta": {"required": False}}},
    }  # fmt: skip
    project = extract(manifest)
    assert [node.name for node in project.nodes] == ["h0", "h1", "m", "s"]  # the hooks first
    assert project.by_id["model.p.m"].config == {"location": "m.parquet"}
    assert project.by_id["seed.p.s"].seed_file == "/project/seeds/s.csv"
    assert project.by_id["seed.p.s"].config == {"column_types": {"a": "INTEGER"}}
    assert project.record_files == (RecordFile("x.jsonl", required=False),)


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _fake_project(folder: Path, text: str) -> Path:
    (folder / "models").mkdir(parents=True, exist_ok=True)
    (folder / "dbt_project.yml").write_text("name: p\n")
    (folder / "models" / "m.sql").write_text(text)
    return folder


def test_a_compilation_is_kept_per_version_of_a_checkout_and_others_are_left_alone(
    tmp_path: Path, own_cache: Path
) -> None:
    one = _fake_project(tmp_path / "one", "select 1")
    other = _fake_project(tmp_path / "other", "select 1")
    first = dbt_compile.compiled_dir(one, None)
    assert dbt_compile.compiled_dir(one, None) == first
    assert dbt_compile.compiled_dir(other, None) != first  # another checkout, another place
    (one / "models" / "m.sql").write_text("select 2")
    changed = dbt_compile.compiled_dir(one, None)
    assert changed != first and changed.parent == first.parent
    for folder in (first, changed, dbt_compile.compiled_dir(other, None)):
        folder.mkdir(parents=True)
    dbt_compile._prune(changed)
    assert not first.exists()  # the same checkout's older version: never read again
    assert changed.exists() and dbt_compile.compiled_dir(other, None).exists()


def test_a_compilation_in_a_folder_others_may_write_in_is_never_read(
    tmp_path: Path, own_cache: Path
) -> None:
    project = _fake_project(tmp_path / "one", "select 1")
    where = dbt_compile.compiled_dir(project, None)
    where.mkdir(parents=True)
    kept = _project()
    (where / dbt_compile.PROJECT_FILE).write_text(
        json.dumps({"nodes": [n.__dict__ | {"tags": list(n.tags)} for n in kept.nodes],
                    "record_files": [r.__dict__ for r in kept.record_files], "key": "k"})
    )  # fmt: skip
    assert dbt_compile._read(where / dbt_compile.PROJECT_FILE) is not None
    os.chmod(where.parent, 0o777)
    assert dbt_compile._read(where / dbt_compile.PROJECT_FILE) is None
    with pytest.raises(AggregationError, match="another user may write in this folder"):
        dbt_compile.compiled_project(project, None)


def test_dbt_compiles_into_a_new_private_folder_and_its_parse_is_read_only_from_there(
    tmp_path: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _fake_project(tmp_path / "one", "select 1")
    # a parse planted where dbt looks by default: the project's own target folder
    (project / "target").mkdir()
    (project / "target" / dbt_compile.PARTIAL_PARSE).write_bytes(b"planted")
    seen: dict[str, object] = {}

    def dbt(arguments: list[str], env: object) -> tuple[int, str]:
        target = Path(arguments[arguments.index("--target-path") + 1])
        seen.update(target=target, found=target.exists())
        target.mkdir()
        (target / "manifest.json").write_text(json.dumps({"nodes": {}, "sources": {}}))
        (target / dbt_compile.PARTIAL_PARSE).write_bytes(b"dbt's own")
        return 0, ""

    monkeypatch.setattr(dbt_compile, "run_dbt_cli", dbt)
    dbt_compile.compiled_project(project, None)
    where = dbt_compile.compiled_dir(project, None)
    target = seen["target"]
    assert isinstance(target, Path)
    assert seen["found"] is False  # dbt starts from no saved parse
    assert target.parent.parent == where.parent  # a new folder of the private cache
    assert where.parent.stat().st_uid == os.getuid()
    assert not where.parent.stat().st_mode & 0o022
    parse = dbt_compile.saved_parse(project, None)
    assert parse == where / "target" / dbt_compile.PARTIAL_PARSE
    assert parse.read_bytes() == b"dbt's own"
    # once others may write in the cache, its parse is never handed to dbt
    os.chmod(where.parent, 0o777)
    assert dbt_compile.saved_parse(project, None) is None


def test_with_the_results_folder_set_each_node_s_seconds_are_written(
    run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PDBENCH_DBT_RUN_RESULTS", str(tmp_path / "results"))
    test = _test("big", 'select * from "memory"."main"."stg_rounds" where n > 5', "stg_rounds")
    execute(_project(test), DbtRequest("build", run_dir=run_dir, select="+g_totals"))
    written = json.loads((tmp_path / "results" / "run_results-0.json").read_text())["results"]
    assert {(r["unique_id"], r["status"]) for r in written} == {
        ("model.p.stg_rounds", "success"),
        ("test.p.big.0123456789", "pass"),
        ("model.p.int_doubled", "success"),
        ("model.p.g_totals", "success"),
    }
    assert all(r["execution_time"] >= 0 for r in written)
