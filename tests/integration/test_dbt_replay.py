"""A dbt build replayed (pdbench.storage.dbt_plan): the same marts as dbt's, and dbt
whenever the replay cannot vouch for that."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import duckdb
import pytest
from pdbench.errors import AggregationError
from pdbench.storage.dbt import DbtRequest, invoke_dbt
from pdbench.storage.dbt_plan import (
    REPLAY_ENV,
    RUN_DIR_MARK,
    SPILL_MARK,
    Plan,
    plans_folder,
    rows_text,
    write_plan,
)
from pdbench.storage.dbt_recorder import Recording
from pdbench.storage.dbt_replay import Unit, replay, units

from tests.conftest import write_experiment
from tests.e2e.test_run_integrity import pdbench


def _request(run_dir: Path) -> DbtRequest:
    """The request ``pdbench aggregate`` sends for a PD run with two replicates and LLM calls."""
    return DbtRequest(
        "build",
        run_dir=run_dir,
        select="tag:pd",
        exclude="tag:pd_round_robin tag:pd_fingerprint",
        threads=1,
        one_duckdb_thread_when_small=True,
        gathered_checks=True,
    )


def _play(project: Path, **fields: object) -> Path:
    shutil.copytree(Path(__file__).resolve().parents[2] / "configs", project / "configs")
    config = write_experiment(project / "configs", **fields)
    result = pdbench("run", str(config), "--output-dir", "out", "--no-aggregate", cwd=project)
    assert result.returncode == 0, result.stderr
    return project / "out"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small PD run (two replicates, a mock LLM agent), played, not aggregated."""
    return _play(tmp_path_factory.mktemp("replay"))


@pytest.fixture(scope="module")
def played_other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the same kind with other data: another seed, longer matches, 3 replicates."""
    horizon = {"type": "fixed", "n": 17}
    return _play(tmp_path_factory.mktemp("replay"), seed=11, replicates=3, horizon=horizon)


def _copy(played: Path, where: Path) -> Path:
    shutil.copytree(played, where)
    return where


def _marts(run_dir: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(run_dir.glob("*.parquet"))}


def test_a_build_made_before_is_replayed_with_the_same_marts(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_dbt(_request(_copy(played, tmp_path / "first")))  # keeps the plan, if not yet kept

    replayed = invoke_dbt(_request(_copy(played, tmp_path / "replayed")))
    monkeypatch.setenv(REPLAY_ENV, "0")
    built = invoke_dbt(_request(_copy(played, tmp_path / "built")))

    assert replayed.replayed and not built.replayed
    assert _marts(tmp_path / "replayed") == _marts(tmp_path / "built")
    assert len(_marts(tmp_path / "built")) >= 8
    assert [Path(p).name for p in replayed.locations] == [Path(p).name for p in built.locations]
    assert all(Path(p).parent == tmp_path / "replayed" for p in replayed.locations)
    assert (replayed.models, replayed.n_checks_passed) == (built.models, built.n_checks_passed)


def test_a_run_with_other_data_of_the_same_kind_is_replayed_too(
    played: Path, played_other: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_dbt(_request(_copy(played, tmp_path / "first")))  # keeps the plan, if not yet kept

    replayed = invoke_dbt(_request(_copy(played_other, tmp_path / "replayed")))
    monkeypatch.setenv(REPLAY_ENV, "0")
    invoke_dbt(_request(_copy(played_other, tmp_path / "built")))

    assert replayed.replayed
    assert _marts(tmp_path / "replayed") == _marts(tmp_path / "built")
    assert _marts(tmp_path / "replayed") != _marts(tmp_path / "first")


def test_a_run_whose_data_fails_is_built_by_dbt_and_named_as_dbt_names_it(
    played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    invoke_dbt(_request(_copy(played, tmp_path / "good")))  # a plan of this request is kept
    messages = []
    for name, replaying in (("broken", "1"), ("broken-by-dbt", "0")):
        run_dir = _copy(played, tmp_path / name)
        rounds = run_dir / "rounds.jsonl"
        lines = rounds.read_text().splitlines()
        first = json.loads(lines[0])
        lines[0] = json.dumps(first | {"round_index": "one"})  # a string where a number belongs
        rounds.write_text("\n".join(lines) + "\n")
        monkeypatch.setenv(REPLAY_ENV, replaying)
        with pytest.raises(AggregationError) as failed:
            invoke_dbt(_request(run_dir))
        messages.append(str(failed.value).replace(str(run_dir.resolve()), "RUN"))

    assert messages[0] == messages[1]
    assert "RUN/rounds.jsonl: round_index: a JSON varchar" in messages[0], messages[0]


def _plan(statements: list[tuple[int, str, str | None]]) -> Plan:
    answer = {
        "locations": ["answer.parquet"],
        "location_tags": {"answer.parquet": ["pd"]},
        "models": ["answer"],
        "n_checks_passed": 1,
        "n_unit_tests_passed": 0,
    }
    return Plan(config={"threads": "1"}, statements=statements, answer=answer, upstream={})


_WRITE = (
    0,
    f"copy (select 42 as answer) to '{RUN_DIR_MARK}/answer.parquet' (format parquet)",
    None,
)
_GLOB = (1, f"select count(*) from glob('{RUN_DIR_MARK}/rounds.jsonl')", "[[1]]")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return plans_folder()


def test_a_plan_is_sent_to_duckdb_with_the_run_directory_filled_in(
    tmp_path: Path, cache: Path
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "rounds.jsonl").write_text("{}\n")
    write_plan(cache / "key-one.json", _plan([_GLOB, _WRITE]))

    results = replay(DbtRequest("build", run_dir=run_dir, select="tag:pd"), cache / "key-one.json")

    assert results is not None and results.replayed
    assert results.locations == [str(run_dir.resolve() / "answer.parquet")]
    assert results.location_tags == {str(run_dir.resolve() / "answer.parquet"): ("pd",)}
    written = duckdb.sql(f"select answer from '{run_dir / 'answer.parquet'}'").fetchall()
    assert written == [(42,)]


def test_an_answer_other_than_the_recorded_one_stops_the_replay(
    tmp_path: Path, cache: Path
) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()  # no rounds.jsonl: the glob counts 0 where dbt had read 1
    write_plan(cache / "key-one.json", _plan([_GLOB, _WRITE]))

    assert (
        replay(DbtRequest("build", run_dir=run_dir, select="tag:pd"), cache / "key-one.json")
        is None
    )
    assert not (run_dir / "answer.parquet").exists()  # stopped before the statements after it


def test_a_failing_statement_stops_the_replay(tmp_path: Path, cache: Path) -> None:
    write_plan(cache / "key-one.json", _plan([(0, "select * from no_such_table", None)]))
    assert (
        replay(DbtRequest("build", run_dir=tmp_path, select="tag:pd"), cache / "key-one.json")
        is None
    )


def test_plans_in_a_folder_others_may_write_in_are_never_read(tmp_path: Path, cache: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    write_plan(cache / "key-one.json", _plan([_WRITE]))
    cache.chmod(0o777)

    assert (
        replay(DbtRequest("build", run_dir=run_dir, select="tag:pd"), cache / "key-one.json")
        is None
    )
    assert not (run_dir / "answer.parquet").exists()


def test_keeping_a_plan_removes_those_of_other_versions_of_the_project(cache: Path) -> None:
    write_plan(cache / "old-one.json", _plan([_WRITE]))
    write_plan(cache / "new-one.json", _plan([_WRITE]))
    write_plan(cache / "new-two.json", _plan([_GLOB]))

    assert sorted(path.name for path in cache.iterdir()) == ["new-one.json", "new-two.json"]
    assert json.loads((cache / "new-two.json").read_text()) == json.loads(
        json.dumps(asdict(_plan([_GLOB])))
    )


class _Cursor:
    """Stands for one of dbt-duckdb's cursors."""


def test_a_recording_marks_the_run_directory_and_the_spill_folder(tmp_path: Path) -> None:
    run_dir, spill = tmp_path / "run", tmp_path / "spill"
    run_dir.mkdir()
    record = Recording(tmp_path, run_dir, spill)
    record.config = {}
    first, second = _Cursor(), _Cursor()
    record.executed(first, f"set temp_directory = '{spill}'", None)
    record.executed(second, f"select count(*) from glob('{record.run_dir}/rounds.jsonl')", None)
    record.fetched(second, [(1,)])
    answer = {"locations": [str(run_dir / "a.parquet")], "location_tags": {}}

    plan = record.plan(answer, run_dir, {})

    assert plan is not None
    assert plan.statements == [
        (0, f"set temp_directory = '{SPILL_MARK}'", None),
        (1, f"select count(*) from glob('{RUN_DIR_MARK}/rounds.jsonl')", "[[1]]"),
    ]
    assert plan.answer["locations"] == ["a.parquet"]


@pytest.mark.parametrize("flaw", ["real path", "parameters", "rows read twice"])
def test_a_recording_that_cannot_be_replayed_gives_no_plan(tmp_path: Path, flaw: str) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    record = Recording(tmp_path, run_dir, tmp_path / "spill")
    record.config = {}
    cursor = _Cursor()
    answer = {"locations": [], "location_tags": {}}
    if flaw == "real path":  # a path dbt resolved would name this run in another's build
        record.executed(cursor, f"select * from '{run_dir.resolve()}/rounds.jsonl'", None)
    elif flaw == "parameters":
        record.executed(cursor, "select ?", [1])
    else:
        record.executed(cursor, "select 1", None)
        record.fetched(cursor, [(1,)])
        record.fetched(cursor, [])
    assert record.plan(answer, run_dir, {}) is None


def _sent(node: str | None, sql: str) -> str:
    """A statement with dbt's comment at its head, naming its node when it has one."""
    comment = {"app": "dbt", "connection_name": node or "master"}
    return f"/* {json.dumps(comment | ({'node_id': node} if node else {}))} */\n{sql}"


_TABLES = [
    (0, _sent(None, "set threads = 1"), None),
    (1, _sent("model.p.a", "create table a as select 1 as x"), None),
    (2, "BEGIN", None),
    (2, _sent("model.p.b", "create table b as select 2 as y"), None),
    (2, "COMMIT", None),
    (3, _sent("model.p.c", "create table c as select x + y as z from a, b"), None),
    (3, f"copy c to '{RUN_DIR_MARK}/answer.parquet' (format parquet)", None),
    (4, "select 1", "[[1]]"),
]


def test_a_node_waits_for_the_nodes_it_reads_and_dbts_own_units_for_all_before() -> None:
    plan = Plan(
        config={}, statements=_TABLES, answer={}, upstream={"model.p.c": ["model.p.a", "model.p.b"]}
    )

    found = units(plan)

    assert [sorted(unit.after) for unit in found] == [[], [0], [0], [0, 1, 2], [0, 1, 2, 3]]
    assert found[2] == Unit(
        statements=(("BEGIN", None), (_TABLES[3][1], None), ("COMMIT", None)), after=frozenset({0})
    )


def test_units_apart_are_replayed_side_by_side_and_their_readers_after_them(
    tmp_path: Path, cache: Path
) -> None:
    answer = {"locations": ["answer.parquet"], "location_tags": {}, "models": ["c"]}
    answer |= {"n_checks_passed": 0, "n_unit_tests_passed": 0}
    upstream = {"model.p.c": ["model.p.a", "model.p.b"]}
    for attempt in range(20):  # each time a new race between a and b
        write_plan(cache / "key-one.json", Plan({}, _TABLES, answer, upstream))
        results = replay(DbtRequest("build", run_dir=tmp_path, select="x"), cache / "key-one.json")
        assert results is not None, attempt
        assert duckdb.sql(f"select z from '{tmp_path / 'answer.parquet'}'").fetchall() == [(3,)]


def test_of_a_marts_row_count_a_replay_compares_only_whether_it_is_empty() -> None:
    count = '/* {"app": "dbt"} */\n  select count(*) as row_count from "memory"."main"."x__dbt_tmp"'
    other = "select count(*) from x"

    assert rows_text(count, [(5,)]) == rows_text(count, [(9,)]) != rows_text(count, [(0,)])
    assert rows_text(other, [(5,)]) != rows_text(other, [(9,)])
