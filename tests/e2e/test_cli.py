"""The ``pdbench`` commands as the README shows them, and every kind of bad input."""

import json
import shlex
from pathlib import Path

import jsonschema
import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.games import record_sources
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.records import dbt_sources
from pdbench.storage.schema import RunFiles, RunManifest
from typer.testing import CliRunner

from tests.conftest import edit, fake_aggregation
from tests.unit.test_providers import hide_module

EXPERIMENT = "configs/experiment.yaml"
runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def test_validate_summarises_the_conditions(project: Path):
    result = _invoke("validate", EXPERIMENT)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"ok: {EXPERIMENT} (game pd)\n")
    assert "conditions (7):" in result.stdout
    assert "tft_vs_alld: TFT (policy) vs ALLD (policy)" in result.stdout
    assert "horizon: geometric, stop_prob 0.05, at most 60 rounds" in result.stdout
    assert not Path("data").exists()


def test_run_with_two_replicates_writes_the_run_directory(project: Path):
    result = _invoke("run", EXPERIMENT, "--replicates", "2", "--no-aggregate")
    assert result.exit_code == 0, result.stderr
    run_dir = Path("data/runs/demo")
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS, RunFiles.MANIFEST):
        assert (run_dir / name).is_file(), name
    matches = list(read_jsonl(run_dir / PDFiles.MATCHES))
    assert len(matches) == 7 * 2
    assert {m["replicate"] for m in matches} == {0, 1}
    manifest = RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())
    assert manifest.status == "completed"
    assert f"-> {run_dir}" in result.stdout


def test_run_aggregates_at_the_end_and_prints_the_summary(project: Path, monkeypatch):
    seen = fake_aggregation(monkeypatch, game="pd", text="metrics: all good")
    result = _invoke("run", EXPERIMENT)
    assert result.exit_code == 0, result.stderr
    assert seen == [(Path("data/runs/demo"), False)]
    assert result.stdout.rstrip().endswith("metrics: all good")


def test_dry_run_writes_nothing(project: Path):
    result = _invoke("run", EXPERIMENT, "--dry-run", "--replicates", "3")
    assert result.exit_code == 0, result.stderr
    assert "dry run: would write 21 matches to data/runs/demo" in result.stdout
    assert "tft_vs_alld/2:" in result.stdout
    # replicates 0, 1, 2 of the demo's seed last 13, 16 and 60 rounds, in each of the seven
    # conditions: 7 x 89 = 623; the mean length is (1 - 0.95 ** 60) / 0.05 = 19.0786, x 21
    assert "  tft_vs_alld/2: 60 rounds" in result.stdout
    assert (
        "total rounds: 623 as drawn from the seed; expected 400.7 (21 matches x 19.08, the mean "
        "length with stop_prob 0.05 capped at 60 rounds)"
    ) in result.stdout.splitlines()
    assert not Path("data").exists()


def test_dry_run_on_an_existing_directory_says_what_a_run_would_do(project: Path):
    assert _invoke("run", EXPERIMENT, "--output-dir", "out/x", "--no-aggregate").exit_code == 0
    before = sorted(p.name for p in Path("out/x").iterdir())
    same = _invoke("run", EXPERIMENT, "--output-dir", "out/x", "--dry-run")
    assert same.exit_code == 0, same.stderr
    assert same.stdout.splitlines()[:3] == [
        "dry run: would write 14 matches to out/x",
        "out/x: holds this run, completed; the run would only say so",
        "run_id demo, seed 20240917, 2 replicates, output out/x",
    ]
    other = _invoke("run", EXPERIMENT, "--output-dir", "out/x", "--dry-run", "--replicates", "3")
    assert other.exit_code == 0, other.stderr
    assert "out/x: exists with another run or config; the run needs --overwrite" in other.stdout
    assert sorted(p.name for p in Path("out/x").iterdir()) == before


def test_a_rerun_of_a_completed_run_says_so_and_a_changed_one_is_refused(project: Path):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    rounds = Path("data/runs/demo/rounds.jsonl").read_bytes()
    again = _invoke("run", EXPERIMENT)
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("run demo is already complete in data/runs/demo (same config")
    assert Path("data/runs/demo/rounds.jsonl").read_bytes() == rounds
    more = _invoke("run", EXPERIMENT, "--replicates", "3", "--no-aggregate")
    assert more.exit_code == 2
    assert more.stderr == (
        "error: data/runs/demo: run directory already exists and holds a run of another config "
        "(pass --overwrite to replace it)\n"
    )


def test_an_unfinished_run_points_at_resume(project: Path):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    manifest = Path("data/runs/demo/run_manifest.json")
    manifest.write_text(manifest.read_text().replace('"completed"', '"interrupted"'))
    again = _invoke("run", EXPERIMENT, "--no-aggregate")
    assert again.exit_code == 2
    assert again.stderr == (
        "error: data/runs/demo: run directory already exists and holds this run, interrupted "
        "(pass --resume to continue it, --overwrite to replace it)\n"
    )


def test_output_dir_and_overwrite(project: Path):
    assert _invoke("run", EXPERIMENT, "--output-dir", "out/x", "--no-aggregate").exit_code == 0
    replaced = _invoke("run", EXPERIMENT, "--output-dir", "out/x", "--overwrite", "--no-aggregate")
    assert replaced.exit_code == 0, replaced.stderr


def test_overwrite_refuses_a_folder_that_is_not_a_run(project: Path):
    Path("precious").mkdir()
    Path("precious/notes.txt").write_text("keep me")
    result = _invoke("run", EXPERIMENT, "--output-dir", "precious", "--overwrite", "--no-aggregate")
    assert result.exit_code == 2
    assert Path("precious/notes.txt").read_text() == "keep me"


@pytest.mark.parametrize(
    "command",
    [
        ("aggregate", "nowhere"),
        ("report", "nowhere"),
        ("ui", "nowhere", "--print-command"),
        ("compare", "nowhere", "a", "b"),
        ("compare-runs", "nowhere", "."),
        ("compare-runs", ".", "nowhere"),
        ("leaderboard", "nowhere", "."),
        ("audience", "nowhere", "--print-command"),
    ],
    ids=" ".join,
)
def test_every_command_refuses_a_missing_run_directory_in_one_line(project: Path, command):
    result = _invoke(*command)
    assert result.exit_code == 2
    assert result.stderr == "error: nowhere: no such run directory\n"
    assert result.stdout == ""


def test_aggregate_calls_the_aggregation_of_the_run(project: Path, monkeypatch):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    seen = fake_aggregation(monkeypatch, game="pd", text="built {run_dir}")
    result = _invoke("aggregate", "data/runs/demo")
    assert result.exit_code == 0
    assert result.stdout == "built data/runs/demo\n"
    assert _invoke("aggregate", "data/runs/demo", "--unit-tests").exit_code == 0
    # the unit tests check the SQL, not the run: only when asked for
    assert [unit_tests for _, unit_tests in seen] == [False, True]


def test_ui_prints_the_streamlit_command(project: Path):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    result = _invoke("ui", "data/runs/demo", "--port", "8765", "--print-command")
    assert result.exit_code == 0
    words = shlex.split(result.stdout)
    assert Path(words[0]).name == "streamlit"
    assert words[1:3] == ["run", str(cli.STREAMLIT_APP)]
    run_dir = Path("data/runs/demo").resolve()
    server_words, app_words = words[3 : words.index("--")], words[words.index("--") + 1 :]
    server = dict(zip(server_words[::2], server_words[1::2], strict=True))
    # what the command must do: the port asked for, loopback only, no browser, no telemetry
    assert server["--server.port"] == "8765"
    assert server["--server.address"] == "127.0.0.1"
    assert server["--server.headless"] == "true"
    assert server["--browser.gatherUsageStats"] == "false"
    # the app gets the run as an absolute path, and the folder it picks other runs from
    assert app_words == ["--run-dir", str(run_dir), "--runs-root", str(run_dir.parent)]
    assert cli.STREAMLIT_APP.is_absolute() and cli.STREAMLIT_APP.is_file()


BAD_INPUTS = [
    pytest.param(
        EXPERIMENT, "  DD: [1, 1]", "  DD: [1, 1\n", f"{EXPERIMENT}: line ", id="broken-yaml"
    ),
    pytest.param(
        EXPERIMENT,
        "overrides: {persona: cooperative, mock:",
        "overrides: {persona: cooperative, batch: true, mock:",
        f"{EXPERIMENT}: conditions[3].agent_a.batch: PD matches are sequential",
        id="batch-in-a-match",
    ),
    pytest.param(
        EXPERIMENT,
        "replicates: 2",
        "replicates: 2\nrounds: 5",
        f"{EXPERIMENT}: rounds: unknown key",
        id="unknown-key",
    ),
    pytest.param(
        EXPERIMENT,
        "ref: agents/llm_default.yaml\n      overrides: {persona: cooperative",
        "ref: agents/llm.yaml\n      overrides: {persona: cooperative",
        f"{EXPERIMENT}: conditions[3].agent_a.ref: file not found: agents/llm.yaml",
        id="missing-ref",
    ),
    pytest.param(
        "configs/agents/llm_default.yaml",
        "round_prompt: prompts/pd_round.md",
        "round_prompt: prompts/round.md",
        "configs/agents/llm_default.yaml: round_prompt: prompt file not found: prompts/round.md",
        id="missing-prompt-file",
    ),
    pytest.param(
        EXPERIMENT,
        "history_window: 3}",
        "history_window: -1}",
        f"{EXPERIMENT}: conditions[6].agent_a.history_window: ",
        id="negative-window",
    ),
    pytest.param(
        EXPERIMENT,
        "stop_prob: 0.05",
        "stop_prob: 0",
        f"{EXPERIMENT}: horizon.stop_prob: ",
        id="stop-prob-zero",
    ),
    pytest.param(
        EXPERIMENT,
        "stop_prob: 0.05",
        "stop_prob: 1.2",
        f"{EXPERIMENT}: horizon.stop_prob: ",
        id="stop-prob-above-one",
    ),
    pytest.param(
        EXPERIMENT,
        "overrides: {policy: ALLD}",
        "overrides: {policy: SUCKER}",
        f"{EXPERIMENT}: conditions[0].agent_b.policy: unknown policy 'SUCKER'",
        id="unknown-policy",
    ),
    pytest.param(
        EXPERIMENT,
        "persona: cooperative,",
        "persona: cooperative, provider: oracle,",
        f"{EXPERIMENT}: conditions[3].agent_a.provider: unknown provider 'oracle'",
        id="unknown-provider",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "expected"), BAD_INPUTS)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_input_is_one_line_exit_2_and_no_run_directory(
    project: Path, file: str, old: str, new: str, expected: str, command: str
):
    edit(project / file, old, new)
    result = (
        _invoke(command, EXPERIMENT, "--no-aggregate")
        if command == "run"
        else _invoke(command, EXPERIMENT)
    )
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {expected}")
    assert "Traceback" not in result.stderr
    assert not Path("data").exists()


def test_a_missing_sdk_says_which_extra_to_install(project: Path, monkeypatch):
    hide_module(monkeypatch, "litellm")
    edit(project / EXPERIMENT, "persona: cooperative,", "persona: cooperative, provider: litellm,")
    result = _invoke("run", EXPERIMENT, "--no-aggregate")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {EXPERIMENT}: conditions[3].agent_a.provider: provider 'litellm' needs the "
        "'litellm' package: uv sync --extra litellm\n"
    )
    assert not Path("data").exists()


def test_a_missing_config_file(project: Path):
    result = _invoke("run", "configs/nothing.yaml")
    assert result.exit_code == 2
    assert result.stderr == "error: configs/nothing.yaml: file not found\n"


def test_a_non_pd_table_warns_and_still_runs(project: Path):
    edit(project / EXPERIMENT, "CC: [3, 3]", "CC: [2, 2]")
    result = _invoke("run", EXPERIMENT, "--no-aggregate")
    assert result.exit_code == 0
    assert result.stderr.startswith(
        f"warning: {EXPERIMENT}: payoffs: not a prisoner's dilemma: agent_a: 2R > T + S"
    )


def test_resume_of_a_completed_run_and_no_cache_as_the_readme_shows(project: Path):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    rounds = (Path("data/runs/demo") / PDFiles.ROUNDS).read_text()
    resumed = _invoke("run", EXPERIMENT, "--resume", "--no-aggregate")
    assert resumed.exit_code == 0, resumed.stderr
    assert (Path("data/runs/demo") / PDFiles.ROUNDS).read_text() == rounds
    assert "completed: 14 matches" in resumed.stdout
    fresh = _invoke("run", EXPERIMENT, "--no-cache", "--overwrite", "--no-aggregate")
    assert fresh.exit_code == 0, fresh.stderr
    both = _invoke("run", EXPERIMENT, "--resume", "--overwrite", "--no-aggregate")
    assert both.exit_code == 2


def test_ctrl_c_before_a_command_has_started_ends_quietly_with_130(monkeypatch, capsys):
    """While Python still imports (before a command sets up its own handling)."""

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "app", interrupted)
    with pytest.raises(SystemExit) as ended:
        cli.main()
    assert ended.value.code == 130
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"garbage", "not a valid pdbench manifest: (the file): Invalid JSON"),
        (b'{"run_id": 1}', "not a valid pdbench manifest: run_id: Input should be a valid string"),
        (b"\xff\xfe\x00", "not a valid pdbench manifest: (the file): Invalid JSON"),
        (b"", "not a valid pdbench manifest: (the file): Invalid JSON: EOF"),
    ],
    ids=["garbage", "wrong-schema", "not-utf8", "truncated"],
)
def test_a_bad_manifest_is_one_line_for_aggregate_and_ui(project: Path, content, message):
    Path("bad").mkdir()
    Path("bad/run_manifest.json").write_bytes(content)
    for command in (("aggregate", "bad"), ("ui", "bad", "--print-command")):
        result = _invoke(*command)
        assert result.exit_code == 2, command
        assert result.stderr.startswith(f"error: bad/run_manifest.json: {message}"), result.stderr
        assert result.stderr.count("\n") == 1


def test_an_output_dir_under_a_file_is_one_line_and_writes_nothing(project: Path):
    Path("afile").write_text("a file, not a folder")
    result = _invoke("run", EXPERIMENT, "--output-dir", "afile/run", "--no-aggregate")
    assert result.exit_code == 2
    assert result.stderr == "error: afile/run: cannot create the run directory: Not a directory\n"
    assert Path("afile").read_text() == "a file, not a folder"


def test_aggregate_warns_about_a_run_stopped_by_force(project: Path, monkeypatch):
    from pdbench import aggregate
    from pdbench.dbt_build.invoke import DbtResults

    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    manifest = Path("data/runs/demo/run_manifest.json")
    manifest.write_text(manifest.read_text().replace('"completed"', '"running"'))
    monkeypatch.setattr(
        aggregate,
        "invoke_dbt",
        lambda *a, **k: DbtResults([], n_checks_passed=0, n_unit_tests_passed=0),
    )
    told: list[str] = []
    aggregate.aggregate_run(Path("data/runs/demo"), on_start=told.append)
    assert (
        told[0].startswith("warning: ") and "is marked running but no process holds it" in told[0]
    )
    assert told[1].startswith("building the metrics of ")


def test_schema_lists_every_record_with_its_file():
    result = _invoke("schema")
    assert result.exit_code == 0, result.stderr
    listed = dict(line.split() for line in result.stdout.splitlines())
    assert listed == {
        "rounds": PDFiles.ROUNDS,
        "matches": PDFiles.MATCHES,
        "statements": PDFiles.STATEMENTS,
        "calls": RunFiles.CALLS,
        "questions": ArenaFiles.QUESTIONS,
        "question_ratings": ArenaFiles.QUESTION_RATINGS,
        "answers": ArenaFiles.ANSWERS,
        "judgments": ArenaFiles.JUDGMENTS,
        "audience_votes": ArenaFiles.AUDIENCE_VOTES,
        "self_assessments": ArenaFiles.SELF_ASSESSMENTS,
        "embeddings": ArenaFiles.EMBEDDINGS,
        "pairwise_judgments": ArenaFiles.PAIRWISE_JUDGMENTS,
        "manifest": RunFiles.MANIFEST,
    }


def test_the_schema_a_record_prints_holds_every_line_a_run_writes(project: Path):
    assert _invoke("run", EXPERIMENT, "--no-aggregate").exit_code == 0
    run_dir = Path("data/runs/demo")
    written = {
        "rounds": list(read_jsonl(run_dir / PDFiles.ROUNDS)),
        "matches": list(read_jsonl(run_dir / PDFiles.MATCHES)),
        "calls": list(read_jsonl(run_dir / RunFiles.CALLS)),
        "manifest": [json.loads((run_dir / RunFiles.MANIFEST).read_text())],
    }
    for record, lines in written.items():
        result = _invoke("schema", record)
        assert result.exit_code == 0, result.stderr
        schema = json.loads(result.stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
        validator = jsonschema.Draft202012Validator(schema)
        assert lines, record
        for line in lines:
            validator.validate(line)
        # a key the contract does not know breaks it
        assert not validator.is_valid({**lines[0], "surprise": 1}), record


def test_schema_dbt_sources_writes_the_sources_file_from_the_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(dbt_sources, "DBT_PROJECT_DIR", tmp_path)
    path = tmp_path / "models" / "staging" / "_sources.yml"
    path.parent.mkdir(parents=True)
    path.write_text("version: 2\n", encoding="utf-8")
    result = _invoke("schema", "--dbt-sources")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"wrote {path}\n"
    assert path.read_text(encoding="utf-8") == dbt_sources.render_sources(record_sources())
    assert "      - name: rounds\n        identifier: rounds.jsonl\n" in path.read_text()
    again = _invoke("schema", "--dbt-sources")
    assert again.stdout == f"unchanged {path}\n"


def test_schema_of_an_unknown_record_is_one_line_exit_2():
    result = _invoke("schema", "round")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: unknown record 'round' (known: rounds, matches, ")
    assert result.stderr.count("\n") == 1
