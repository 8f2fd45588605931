"""One contract per raw record: the pydantic model, its JSON schema, the dbt sources generated
from it and the lines a real run writes all say the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
import yaml
from pdbench.arena.audience.ballot import open_audience_run
from pdbench.arena.audience.votes import append_vote
from pdbench.arena.records import AudienceVoteRecord
from pdbench.arena.runner import run_arena
from pdbench.games import load_config, record_sources, records
from pdbench.imports import FORMATS, ImportOptions
from pdbench.pd.experiment import run_experiment
from pdbench.pd.records import RoundRecord
from pdbench.storage.records.dbt_sources import render_sources
from pdbench.storage.records.fields import Record
from pdbench.storage.schema import (
    RecordFile,
    RecordSource,
    RunFiles,
    duckdb_columns,
    line_keys,
)
from pydantic import BaseModel

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "dbt_project" / "models" / "staging" / "_sources.yml"
JSON_TYPES = {"string": "VARCHAR", "number": "DOUBLE", "boolean": "BOOLEAN"}
INT32 = (-(2**31), 2**31 - 1)
RECORDS = records()


def _words(text: str | None) -> str:
    return " ".join((text or "").split())


def _source_tables() -> dict[str, dict]:
    """Every table of the dbt sources generated from the records, by name (a name used twice
    fails here)."""
    tables: dict[str, dict] = {}
    for source in yaml.safe_load(render_sources(record_sources()))["sources"]:
        for table in source["tables"]:
            assert table["name"] not in tables, f"{table['name']} is declared twice"
            tables[table["name"]] = table
    return tables


def _json_schema_type(prop: dict) -> str:
    """The DuckDB type a JSON schema property calls for, read from the schema alone."""
    options = [o for o in prop.get("anyOf", [prop]) if o.get("type") != "null"]
    assert len(options) == 1, prop
    (option,) = options
    if "$ref" in option:  # a nested model
        return "JSON"
    kind = option.get("type")
    if kind == "integer":
        low, high = option.get("minimum"), option.get("maximum")
        inside = low is not None and high is not None and INT32[0] <= low and high <= INT32[1]
        return "INTEGER" if inside else "BIGINT"
    if kind in ("object", "array"):
        return "JSON"
    return JSON_TYPES[kind]


def test_the_committed_dbt_sources_are_those_generated_from_the_records():
    assert SOURCES.read_text(encoding="utf-8") == render_sources(record_sources()), (
        f"{SOURCES.relative_to(REPO)} is not generated from the record models: run "
        "`uv run pdbench schema --dbt-sources`"
    )


def test_every_record_is_a_dbt_source_table_and_every_source_table_a_record():
    assert sorted(_source_tables()) == sorted(RECORDS)


def test_each_game_is_one_dbt_source_and_what_every_run_writes_another():
    sources = yaml.safe_load(render_sources(record_sources()))["sources"]
    tables = {source["name"]: [table["name"] for table in source["tables"]] for source in sources}
    assert list(tables) == ["pd", "arena", "run"]
    assert tables["pd"] == ["rounds", "matches", "statements"]
    assert {"questions", "answers", "judgments", "pairwise_judgments"} <= set(tables["arena"])
    assert tables["run"] == ["manifest", "calls"]
    meta = {table: _source_tables()[table]["meta"] for table in ("rounds", "answers", "manifest")}
    assert meta == {
        "rounds": {"required": True},
        "answers": {"required": False},
        "manifest": {"required": True, "format": "auto"},
    }


@pytest.mark.parametrize("record", RECORDS.values(), ids=list(RECORDS))
def test_the_dbt_source_declares_the_models_columns_types_and_descriptions(record: RecordFile):
    table = _source_tables()[record.name]
    model = record.model
    assert table["identifier"] == record.file
    assert _words(table["description"])
    assert _words(table["description"]) == _words(model.__doc__.split("\n\n")[0])
    declared = {column["name"]: column["data_type"] for column in table["columns"]}
    assert list(declared.items()) == list(duckdb_columns(model).items())
    for column in table["columns"]:
        description = model.model_fields[column["name"]].description
        assert description, f"{record.name}.{column['name']} has no description in the model"
        assert _words(column["description"]) == _words(description), column["name"]


@pytest.mark.parametrize("record", RECORDS.values(), ids=list(RECORDS))
def test_the_json_schema_has_the_models_fields_in_order_and_their_duckdb_types(
    record: RecordFile,
):
    schema = record.model.model_json_schema()
    assert schema["additionalProperties"] is False
    assert list(schema["properties"]) == list(record.model.model_fields)
    from_schema = {name: _json_schema_type(prop) for name, prop in schema["properties"].items()}
    assert from_schema == duckdb_columns(record.model)


def test_a_subset_of_columns_comes_in_the_order_asked_and_an_unknown_one_is_refused():

    assert duckdb_columns(RoundRecord, "agent_a_payoff", "match_id") == {
        "agent_a_payoff": "DOUBLE",
        "match_id": "VARCHAR",
    }
    with pytest.raises(ValueError, match="RoundRecord has no field 'round'"):
        duckdb_columns(RoundRecord, "round")


def test_an_integer_is_32_bits_only_when_its_bounds_say_so():
    from typing import Annotated

    from pydantic import Field

    class Sample(BaseModel):
        small: Annotated[int, Field(ge=0, le=10)]
        signed: Annotated[int, Field(gt=-(2**31) - 1, lt=2**31)]
        half_open: Annotated[int, Field(ge=0)]
        too_wide: Annotated[int, Field(ge=0, le=2**31)]
        plain: int
        optional_small: Annotated[int, Field(ge=1, le=5)] | None = None

    assert duckdb_columns(Sample) == {
        "small": "INTEGER",
        "signed": "INTEGER",
        "half_open": "BIGINT",
        "too_wide": "BIGINT",
        "plain": "BIGINT",
        "optional_small": "INTEGER",
    }


def test_every_records_file_is_one_pdbench_writes_and_no_other_jsonl_is(tmp_path: Path):
    from pdbench.run.run_dir import is_run_file

    files = {record.file for record in RECORDS.values()}
    assert len(files) == 13 and {"rounds.jsonl", "answers.jsonl", "calls.jsonl"} <= files
    for name in [*files, "notes.jsonl"]:
        (tmp_path / name).write_text("{}\n", encoding="utf-8")
        assert is_run_file(tmp_path / name) is (name != "notes.jsonl"), name


def test_a_description_that_is_long_or_not_plain_yaml_is_folded_and_reads_back_whole():
    class Sample(Record):
        """A sample record."""

        short: str
        """Fits on one line."""
        quoted: str
        """``pd`` or ``arena``: begins with a backtick and holds a colon."""
        long: str
        """One word after another, long enough that the line would run past the width of one
        hundred characters, so it is folded over lines that each stay inside it."""

    text = render_sources(
        [RecordSource("sample", "Sample records.", (RecordFile("s", "s.jsonl", Sample),))]
    )
    assert "            description: Fits on one line.\n" in text
    assert "            description: >\n              ``pd`` or ``arena``" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    (source,) = yaml.safe_load(text)["sources"]
    columns = {column["name"]: column for column in source["tables"][0]["columns"]}
    for name in ("schema_version", "short", "quoted", "long"):
        expected = _words(Sample.model_fields[name].description)
        assert _words(columns[name]["description"]) == expected, name


def test_a_type_with_no_duckdb_column_is_refused():
    class Sample(BaseModel):
        either: int | str

    with pytest.raises(TypeError, match="no DuckDB type"):
        duckdb_columns(Sample)


@pytest.fixture(scope="module")
def run_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The demo PD experiment, the PD config whose agents state their strategies, and the
    demo arena, played on the mock provider; two votes on the arena's answers, written as the
    audience page writes them; and the Language Model Council's pairwise verdicts, imported."""
    root = tmp_path_factory.mktemp("contract")
    shutil.copytree(REPO / "configs", root / "configs")
    pd = run_experiment(load_config(root / "configs" / "experiment.yaml"), output_dir=root / "pd")
    stated = run_experiment(
        load_config(root / "configs" / "stated_strategies.yaml"), output_dir=root / "stated"
    )
    arena = run_arena(load_config(root / "configs" / "arena.yaml"), output_dir=root / "arena")
    audience = open_audience_run(arena.run_dir)
    for score, answer in enumerate(audience.answers[:2]):
        vote = AudienceVoteRecord(
            vote_id=f"vote-{score}",
            run_id=audience.run_id,
            answer_id=answer.answer_id,
            voter="a" * 32,
            score=score,
            created_at="2026-01-01T00:00:00Z",
        )
        append_vote(audience.votes_path, vote)
    council = FORMATS["lm-council"].run(
        [REPO / "tests" / "data" / "lm_council" / "lmc_ei.jsonl"], root / "council", ImportOptions()
    )
    return [pd.run_dir, stated.run_dir, arena.run_dir, council.run_dir]


def _written(run_dirs: list[Path], record: RecordFile) -> list[str]:
    """Every line of ``record``'s file in the runs (the manifest: its whole text)."""
    paths = [run_dir / record.file for run_dir in run_dirs if (run_dir / record.file).is_file()]
    if record.file == RunFiles.MANIFEST:
        return [path.read_text(encoding="utf-8") for path in paths]
    return [line for path in paths for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("record", RECORDS.values(), ids=list(RECORDS))
def test_every_line_a_run_writes_fits_its_model_keys_in_the_models_order(
    run_dirs: list[Path], record: RecordFile
):
    lines = _written(run_dirs, record)
    assert lines, f"the demo runs wrote no {record.file}"
    fields = list(record.model.model_fields)
    always = set(line_keys(record.model))
    for line in lines:
        record.model.model_validate_json(line)
        keys = list(json.loads(line))
        assert keys == [name for name in fields if name in keys]
        assert always <= set(keys)
    if record.name in ("rounds", "questions"):  # both demos store prompts
        assert any(set(json.loads(line)) > always for line in lines)


@pytest.mark.parametrize("record", RECORDS.values(), ids=list(RECORDS))
def test_duckdb_reads_every_file_strictly_with_the_contracts_types(
    run_dirs: list[Path], record: RecordFile
):
    spec = ", ".join(f"'{name}': '{kind}'" for name, kind in duckdb_columns(record.model).items())
    file_format = "auto" if record.file == RunFiles.MANIFEST else "newline_delimited"
    for run_dir in run_dirs:
        path = run_dir / record.file
        if not path.is_file():
            continue
        with duckdb.connect() as con:
            (rows,) = con.execute(
                f"select count(*) from read_json('{path}', format = '{file_format}', "
                f"ignore_errors = false, columns = {{{spec}}})"
            ).fetchone()
        expected = 1 if record.file == RunFiles.MANIFEST else len(path.read_text().splitlines())
        assert rows == expected, path
