"""dbt runs in a worker process; its parse of the project is kept between processes,
whatever the run directory."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest
from pdbench.errors import AggregationError
from pdbench.storage.dbt import DbtProcess, DbtRequest, prune_saved_parses, saved_parse_path
from pdbench.storage.dbt_plan import ONE_THREAD_BYTES, duckdb_threads
from pdbench.storage.dbt_worker import RUN_RESULTS_ENV, one_line

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir
from tests.servers.local import SAFETY_NET_S

MATCHES = [PlannedMatch("tft_vs_alld", 0, "CDDD", "DDDD")]
AGGREGATES = "+pd_aggregates"
"""The aggregates mart and the models it reads: what the worker builds here (its parse is of
the whole project, whatever is built)."""


def _build(run_dir: Path, *, one_duckdb_thread_when_small: bool = False) -> list[str]:
    """``dbt build`` of the PD models in a new worker process; the files it wrote."""
    process = DbtProcess()
    request = DbtRequest(
        "build",
        run_dir=run_dir,
        select=AGGREGATES,
        one_duckdb_thread_when_small=one_duckdb_thread_when_small,
    )
    try:
        return process.invoke(request).locations
    finally:
        process.close()


def test_a_second_process_reuses_the_saved_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = saved_parse_path()
    assert saved.is_relative_to(tmp_path / "cache") and not saved.exists()

    _build(write_run_dir(tmp_path / "run_1", MATCHES))
    assert saved.is_file()
    first = saved.stat().st_mtime_ns

    # another process on another run directory: dbt finds nothing to parse again, so it
    # writes no new parse (were the run directory part of the parse, it would)
    written = _build(write_run_dir(tmp_path / "run_2", MATCHES))
    assert saved.stat().st_mtime_ns == first
    # and the marts went to the second run directory, not the first
    assert str(tmp_path / "run_2" / "aggregates.parquet") in written
    assert all(Path(location).parent == tmp_path / "run_2" for location in written)
    assert (tmp_path / "run_2" / "aggregates.parquet").is_file()


def test_a_damaged_saved_parse_is_parsed_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = saved_parse_path()
    saved.parent.mkdir(parents=True)
    saved.write_bytes(b"not a parse")

    _build(write_run_dir(tmp_path / "run", MATCHES))

    assert (tmp_path / "run" / "aggregates.parquet").is_file()
    assert saved.stat().st_size > 10_000
    assert not list(saved.parent.glob("tmp*")), "no half-written file is left behind"


def test_a_worker_that_dies_is_reported_in_one_line(tmp_path: Path) -> None:
    process = DbtProcess()
    process._process.kill()
    with pytest.raises(
        AggregationError, match=r"the dbt process ended unexpectedly \(exit code -9"
    ):
        process.invoke(
            DbtRequest("build", run_dir=write_run_dir(tmp_path / "run", MATCHES), select=AGGREGATES)
        )
    process.close()


def test_the_worker_runs_one_request_after_another(tmp_path: Path) -> None:
    """A failing build is answered, and the same worker goes on with the next request."""
    good = write_run_dir(tmp_path / "good", MATCHES)
    bad = write_run_dir(tmp_path / "bad", MATCHES)
    rounds = bad / "rounds.jsonl"
    rounds.write_text(rounds.read_text().replace('"agent_b_action":"D"', '"agent_b_action":"X"'))
    process = DbtProcess()
    try:
        with pytest.raises(
            AggregationError, match="accepted_values_int_pd_round_features_action_b"
        ):
            process.invoke(DbtRequest("build", run_dir=bad, select=AGGREGATES))
        results = process.invoke(
            DbtRequest("build", run_dir=good, select=AGGREGATES, unit_tests=True)
        )
        assert results.n_unit_tests_passed > 0
        assert process.is_alive
    finally:
        process.close()
    assert not process.is_alive


def test_a_worker_never_asked_anything_is_stopped_at_once() -> None:
    """pdbench failed or was interrupted before it needed dbt: the worker does not get to
    finish importing dbt and parsing first (nor a build it was running)."""
    process = DbtProcess()
    process.close()
    # stopped by SIGTERM: handled (143) or, when it came before the handler was set, not
    assert process.exit_code in (143, -signal.SIGTERM)


def test_a_worker_that_was_used_ends_by_itself(tmp_path: Path) -> None:
    process = DbtProcess()
    try:
        run_dir = write_run_dir(tmp_path / "run", MATCHES)
        results = process.invoke(DbtRequest("run", run_dir=run_dir, select=AGGREGATES))
    finally:
        process.close()
    assert process.exit_code == 0
    # dbt run builds the models and runs no test
    assert results.n_checks_passed == 0 and (run_dir / "aggregates.parquet").is_file()


def test_a_worker_stopped_while_it_works_ends_and_the_caller_hears_of_it(tmp_path: Path) -> None:
    """pdbench interrupted during a build (Ctrl-C in `pdbench aggregate`): closing stops the
    worker instead of waiting for the build, and the pending call fails in one line."""
    process = DbtProcess()
    errors: list[AggregationError] = []

    def build() -> None:
        try:
            process.invoke(
                DbtRequest(
                    "build", run_dir=write_run_dir(tmp_path / "run", MATCHES), select="tag:pd"
                )
            )
        except AggregationError as err:
            errors.append(err)

    caller = threading.Thread(target=build)
    caller.start()
    deadline = time.monotonic() + SAFETY_NET_S
    while not process._lock.locked() and time.monotonic() < deadline:
        time.sleep(0.01)
    process.close()
    caller.join(timeout=SAFETY_NET_S)
    assert process.exit_code in (143, -signal.SIGTERM)
    assert len(errors) == 1 and "ended unexpectedly" in str(errors[0])


def test_a_small_run_is_built_with_one_duckdb_thread_and_its_stages_are_timed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results_dir = tmp_path / "results"
    monkeypatch.setenv(RUN_RESULTS_ENV, str(results_dir))
    run_dir = write_run_dir(tmp_path / "run", MATCHES)

    written = _build(run_dir, one_duckdb_thread_when_small=True)
    # a request that does not ask for it keeps DuckDB's default
    _build(run_dir)

    assert str(run_dir / "aggregates.parquet") in written
    stages = json.loads((results_dir / "stages-0.json").read_text(encoding="utf-8"))
    assert stages["duckdb_threads"] == 1
    second = json.loads((results_dir / "stages-1.json").read_text(encoding="utf-8"))
    assert second["duckdb_threads"] == 0
    order = ["worker_started", "dbt_imported", "request_received", "answered"]
    assert [stages[name] for name in order] == sorted(stages[name] for name in order)
    assert (results_dir / "run_results-0.json").is_file()


def test_a_run_with_large_raw_files_keeps_duckdbs_threads(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    chunk = run_dir / "shards" / "part-0"
    chunk.mkdir(parents=True)
    (run_dir / "rounds.jsonl").write_text("{}\n", encoding="utf-8")
    assert duckdb_threads(run_dir) == 1
    # a chunk's file counts as the run's own do (a sparse file: no disk used)
    with (chunk / "rounds.jsonl").open("wb") as handle:
        handle.truncate(ONE_THREAD_BYTES)
    assert duckdb_threads(run_dir) is None


def test_a_changed_project_is_never_given_the_parse_of_its_older_self(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # dbt's own check of a saved parse let a model's YAML entry, moved into a file of its
    # own, be read twice (every build then failed): a parse is named for its project's content
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "models" / "_marts.yml").write_text("models: [{name: a}, {name: b}]\n")
    before = saved_parse_path(project)
    assert saved_parse_path(project) == before  # the same content, the same parse

    (project / "models" / "_marts.yml").write_text("models: [{name: a}]\n")
    (project / "models" / "b.yml").write_text("models: [{name: b}]\n")
    after = saved_parse_path(project)
    assert after != before and after.parent == before.parent

    elsewhere = saved_parse_path(tmp_path / "another_checkout")
    legacy = before.parent / f"{before.name.split('-')[0]}-partial_parse.msgpack"
    for path in (before, after, elsewhere, legacy):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"parse")
    prune_saved_parses(after)
    # the older parses of this checkout are gone; another checkout's is kept
    assert after.exists() and elsewhere.exists()
    assert not before.exists() and not legacy.exists()


def test_an_error_dbt_reports_on_several_lines_is_said_in_one() -> None:
    reported = (
        "Compilation Error\n  dbt found two schema.yml entries for the same resource named b."
        "\n   - models/a.yml\n  models/b.yml"
    )
    assert one_line(reported) == (
        "Compilation Error dbt found two schema.yml entries for the same resource named b."
        " - models/a.yml models/b.yml"
    )


def test_a_parse_in_a_folder_others_may_write_in_is_never_read_nor_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pdbench.storage.dbt_worker import _restore_saved_parse

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = saved_parse_path()
    saved.parent.mkdir(parents=True)
    saved.parent.chmod(0o777)  # a shared cache: anyone may plant a parse here
    saved.write_bytes(b"planted")

    target = tmp_path / "target"
    _restore_saved_parse(target)
    assert not (target / "partial_parse.msgpack").exists()

    _build(write_run_dir(tmp_path / "run", MATCHES))
    assert (tmp_path / "run" / "aggregates.parquet").is_file()
    assert saved.read_bytes() == b"planted"

    saved.parent.chmod(0o700)
    _restore_saved_parse(target)
    assert (target / "partial_parse.msgpack").read_bytes() == b"planted"
