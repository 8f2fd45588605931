"""dbt's parse of the project is kept between processes, whatever the run directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdbench.storage import dbt
from pdbench.storage.aggregate import aggregate_run

from tests.integration.pd_run_fixture import PlannedMatch, write_run_dir

MATCHES = [PlannedMatch("tft_vs_alld", 0, "CDDD", "DDDD")]


def _new_process(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """What a new process starts with: no dbt target folder of its own yet."""
    folder.mkdir()
    monkeypatch.setattr(dbt, "_work_dir", folder)


def test_second_process_reuses_the_saved_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = dbt.saved_parse_path()
    assert saved.is_relative_to(tmp_path / "cache") and not saved.exists()

    _new_process(monkeypatch, tmp_path / "process_1")
    aggregate_run(write_run_dir(tmp_path / "run_1", MATCHES))
    assert saved.is_file()
    first = saved.stat().st_mtime_ns

    # another process on another run directory: dbt finds nothing to parse again, so it
    # writes no new parse (were the run directory part of the parse, it would)
    _new_process(monkeypatch, tmp_path / "process_2")
    summary = aggregate_run(write_run_dir(tmp_path / "run_2", MATCHES))
    assert saved.stat().st_mtime_ns == first
    assert (tmp_path / "process_2" / "target" / "partial_parse.msgpack").is_file()
    # and the marts went to the second run directory, not the first
    assert summary.tables["aggregates.parquet"] == 2
    assert (tmp_path / "run_2" / "aggregates.parquet").is_file()


def test_a_damaged_saved_parse_is_parsed_again_and_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    saved = dbt.saved_parse_path()
    saved.parent.mkdir(parents=True)
    saved.write_bytes(b"not a parse")

    _new_process(monkeypatch, tmp_path / "process")
    summary = aggregate_run(write_run_dir(tmp_path / "run", MATCHES))

    assert summary.tables["aggregates.parquet"] == 2
    assert saved.stat().st_size > 10_000
    assert not list(saved.parent.glob("tmp*")), "no half-written file is left behind"
