"""The rounds of one match come from ``rounds.parquet`` (the ``pd_rounds`` mart, sorted by
match), hold what ``rounds.jsonl`` holds, and are read from the JSONL, with a note naming the
command that writes the copy, when the copy is missing or older than the raw rounds; a run
played in chunks gets its copy too."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from pdbench.aggregate import aggregate_run
from pdbench.games import load_config
from pdbench.model_text import escaped
from pdbench.pd.experiment import run_experiment
from pdbench.pd.marts import PDMart
from pdbench.pd.records import PDFiles
from pdbench.run.executors import LocalExecutor
from pdbench.storage.schema import RunFiles
from pdbench.storage.shards import SHARDS_DIR, record_files
from pdbench.ui.pd import reader as pd_reader
from streamlit.testing.v1 import AppTest

from tests.servers.local import SAFETY_NET_S
from tests.ui.conftest import APP


@pytest.fixture
def run_copy(pd_run: Path, tmp_path: Path) -> Path:
    """The session's aggregated PD run, copied with its files' times."""
    copy = tmp_path / "run"
    shutil.copytree(pd_run, copy)
    return copy


def _records(run_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for path in record_files(run_dir, PDFiles.ROUNDS)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _from_jsonl(run_dir: Path, match_id: str, monkeypatch: pytest.MonkeyPatch) -> pd.DataFrame:
    """:func:`pd_reader.match_rounds` made to read the raw JSONL, whatever the run holds."""
    files = record_files(run_dir, PDFiles.ROUNDS)
    with monkeypatch.context() as patch:
        patch.setattr(
            pd_reader,
            "rounds_source",
            lambda _: pd_reader.RoundsSource(files, from_mart=False, note="jsonl"),
        )
        return pd_reader.match_rounds(run_dir, match_id)


def _expected(records: list[dict], match_id: str) -> list[tuple]:
    """Rows of one match as :func:`match_rounds` gives them, built from the records by hand:
    one per round and side, by round then side; the running total is the record's own."""
    rows = []
    for record in sorted(
        (r for r in records if r["match_id"] == match_id), key=lambda r: r["round_index"]
    ):
        for side in ("agent_a", "agent_b"):
            rows.append(
                (
                    record["round_index"],
                    side,
                    record[f"{side}_name"],
                    record[f"{side}_action"],
                    record[f"{side}_payoff"],
                    record[f"{side}_cum_payoff"],
                    record[f"{side}_valid"],
                    record[f"{side}_attempts"],
                )
            )
    return rows


def _as_rows(rounds: pd.DataFrame) -> list[tuple]:
    columns = [
        "round_index",
        "side",
        "agent_name",
        "action",
        "payoff",
        "cum_payoff",
        "is_valid",
        "attempts",
    ]
    return [tuple(row) for row in rounds[columns].itertuples(index=False)]


def test_the_copy_holds_every_round_sorted_by_match_and_round(pd_run: Path):
    table = pq.read_table(pd_run / PDMart.ROUNDS)
    records = _records(pd_run)
    assert table.num_rows == len(records) > 0
    keys = list(zip(table["match_id"].to_pylist(), table["round_index"].to_pylist(), strict=True))
    assert keys == sorted((r["match_id"], r["round_index"]) for r in records)
    # no prompt, reply, seed or timestamp is copied: only what the match page draws
    assert not {"prompts", "raw_responses", "match_seed", "timestamp_utc"} & set(table.column_names)


def test_every_match_reads_as_its_records_say_from_the_copy_and_from_the_jsonl(
    pd_run: Path, monkeypatch: pytest.MonkeyPatch
):
    assert pd_reader.rounds_source(pd_run).from_mart
    records = _records(pd_run)
    match_ids = sorted({r["match_id"] for r in records})
    assert len(match_ids) == 6
    for match_id in match_ids:
        from_mart = pd_reader.match_rounds(pd_run, match_id)
        assert _as_rows(from_mart) == _expected(records, match_id), match_id
        assert from_mart.equals(_from_jsonl(pd_run, match_id, monkeypatch)), match_id


def test_a_run_without_the_copy_reads_the_jsonl_and_says_how_to_write_the_copy(run_copy: Path):
    (run_copy / PDMart.ROUNDS).unlink()
    source = pd_reader.rounds_source(run_copy)
    assert not source.from_mart and source.files == [run_copy / PDFiles.ROUNDS]
    assert f"this run has no {PDMart.ROUNDS}" in (source.note or "")
    assert f"`uv run pdbench aggregate {run_copy}`" in (source.note or "")
    match_id = _records(run_copy)[0]["match_id"]
    assert _as_rows(pd_reader.match_rounds(run_copy, match_id)) == _expected(
        _records(run_copy), match_id
    )


def test_a_copy_older_than_the_rounds_is_not_read(run_copy: Path):
    """A round appended after the build (a resume without aggregate) is shown: the copy,
    which lacks it, is passed over for the JSONL."""
    records = _records(run_copy)
    last = max(records, key=lambda r: (r["match_id"], r["round_index"]))
    extra = last | {"round_index": last["round_index"] + 1}
    with (run_copy / PDFiles.ROUNDS).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(extra) + "\n")
    source = pd_reader.rounds_source(run_copy)
    assert not source.from_mart
    assert f"{PDMart.ROUNDS} is older than {PDFiles.ROUNDS}" in (source.note or "")
    rounds = pd_reader.match_rounds(run_copy, last["match_id"])
    assert rounds["round_index"].max() == extra["round_index"]


def test_only_a_change_of_the_rounds_makes_the_copy_stale(run_copy: Path):
    with (run_copy / RunFiles.CALLS).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    assert pd_reader.rounds_source(run_copy).from_mart


def test_the_match_page_says_why_it_reads_the_jsonl(
    run_copy: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sys, "argv", ["streamlit_app.py", "--run-dir", str(run_copy)])
    at = AppTest.from_file(str(APP), default_timeout=SAFETY_NET_S)
    at.run()
    at.radio(key="pd_page").set_value("Match").run()
    assert not at.exception and not [i for i in at.info if escaped(PDMart.ROUNDS) in i.value]
    (run_copy / PDMart.ROUNDS).unlink()
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    notes = [i.value for i in at.info if escaped(PDMart.ROUNDS) in i.value]
    assert len(notes) == 1 and "pdbench aggregate" in notes[0]


def test_a_run_played_in_chunks_gets_its_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    config = tmp_path / "chunks.yaml"
    config.write_text(
        "run_id: chunks\nseed: 5\nreplicates: 2\nhorizon: {type: fixed, n: 30}\n"
        "conditions: []\nround_robin:\n  agents: [TFT, ALLD, WSLS]\n",
        encoding="utf-8",
    )
    run_dir = tmp_path / "chunks"
    run_experiment(
        load_config(config), output_dir=run_dir, executor=LocalExecutor(), chunk_rounds=40
    )
    assert not (run_dir / PDFiles.ROUNDS).exists()
    assert len(list((run_dir / SHARDS_DIR).glob("part-*"))) >= 3
    aggregate_run(run_dir)
    records = _records(run_dir)
    assert pq.read_metadata(run_dir / PDMart.ROUNDS).num_rows == len(records)
    assert pd_reader.rounds_source(run_dir).from_mart
    for match_id in sorted({r["match_id"] for r in records}):
        from_mart = pd_reader.match_rounds(run_dir, match_id)
        assert _as_rows(from_mart) == _expected(records, match_id), match_id
        assert from_mart.equals(_from_jsonl(run_dir, match_id, monkeypatch)), match_id
