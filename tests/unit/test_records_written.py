from pathlib import Path

from pdbench.storage.shards import SHARDS_DIR, records_written


def test_a_record_file_of_whitespace_holds_no_records(tmp_path: Path):
    (tmp_path / "calls.jsonl").write_text("\n  \n")
    assert not records_written(tmp_path, "calls.jsonl")


def test_a_missing_record_file_holds_no_records(tmp_path: Path):
    assert not records_written(tmp_path, "calls.jsonl")


def test_one_line_past_a_long_blank_stretch_counts(tmp_path: Path):
    (tmp_path / "calls.jsonl").write_text(" " * 200_000 + '{"i":1}\n')
    assert records_written(tmp_path, "calls.jsonl")


def test_a_line_in_any_chunk_counts(tmp_path: Path):
    for part, text in (("part-00000", ""), ("part-00001", '{"i":1}\n')):
        (tmp_path / SHARDS_DIR / part).mkdir(parents=True)
        (tmp_path / SHARDS_DIR / part / "calls.jsonl").write_text(text)
    assert records_written(tmp_path, "calls.jsonl")
