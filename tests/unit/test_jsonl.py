from pathlib import Path

import pytest
from pdbench.errors import RunDirError
from pdbench.storage.jsonl import JsonlWriter, read_jsonl


def test_written_records_read_back_in_order(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    with JsonlWriter(path) as writer:
        writer.write({"i": 1, "s": "é"})
        writer.write({"i": 2}, flush=False)
    assert writer.count == 2
    assert list(read_jsonl(path)) == [{"i": 1, "s": "é"}, {"i": 2}]


def test_a_flushed_record_is_on_disk_before_close(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    writer = JsonlWriter(path)
    writer.write({"i": 1})
    assert path.read_text() == '{"i":1}\n'
    writer.close()


def test_a_torn_last_line_is_skipped(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"i":1}\n{"i":2}\n{"i":3,"s":"hal')
    assert list(read_jsonl(path)) == [{"i": 1}, {"i": 2}]


def test_a_torn_line_in_the_middle_is_an_error(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"i":1}\n{"i":\n{"i":3}\n')
    with pytest.raises(RunDirError, match="line 2"):
        list(read_jsonl(path))


def test_appending_keeps_what_was_there(tmp_path: Path):
    path = tmp_path / "x.jsonl"
    with JsonlWriter(path) as writer:
        writer.write({"i": 1})
    with JsonlWriter(path) as writer:
        writer.write({"i": 2})
    assert [r["i"] for r in read_jsonl(path)] == [1, 2]


def test_a_writer_knows_whether_the_file_holds_all_it_was_given(tmp_path):
    from pdbench.storage.jsonl import JsonlWriter

    path = tmp_path / "f.jsonl"
    path.write_text('{"before":1}\n')
    writer = JsonlWriter(path)
    writer.write({"s": "café"})
    writer.write_text('{"i":1}\n{"i":2}\n', 2)
    writer.close()
    assert writer.written_whole()
    assert (writer.count, writer.bytes) == (3, len('{"s":"café"}\n'.encode()) + 16)
    with path.open("a") as other:
        other.write('{"stray":1}\n')
    assert not writer.written_whole()
