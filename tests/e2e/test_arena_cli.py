"""``pdbench validate`` / ``run`` on arena configs, and bad arena input, as the README shows."""

import re
from pathlib import Path

import pytest
from pdbench import cli
from pdbench.arena.records import ArenaFiles
from pdbench.storage.schema import RunFiles
from typer.testing import CliRunner

from tests.conftest import count_columns, edit, fake_aggregation, write_arena

ARENA = "configs/arena.yaml"
runner = CliRunner()


def _invoke(*args: str):
    return runner.invoke(cli.app, list(args))


def _filter_off(project: Path) -> None:
    edit(project / ARENA, "{kind: bottom_fraction, fraction: 0.33}", "{kind: none}")


def test_validate_summarises_the_tournament(project: Path):
    result = _invoke("validate", ARENA)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"ok: {ARENA} (game arena)\n")
    assert "players (7):" in result.stdout
    assert "  fathom (judge only): mock/mock-arena" in result.stdout
    assert "  gale (answerer only): mock/mock-arena" in result.stdout
    assert "  dynamo: mock/mock-arena, answer skill 0.45" in result.stdout
    assert "favours borealis" in result.stdout
    assert not Path("data").exists()


def test_dry_run_prints_the_calls_per_phase_and_writes_nothing(project: Path):
    result = _invoke("run", ARENA, "--dry-run")
    assert result.exit_code == 0, result.stderr
    # 5 players, a judge-only referee and an answerer-only participant (P = 5, R = 6
    # evaluate, A = 6 answer), 6 questions each: 5; 5*6*(6-1) = 150; at most 6*30 = 180; at
    # most 30*(6*6 - 5) = 930; at most one rationale per judgement, 930; one self-assessment
    # per answer, at most 180; the embedder: 30 questions and at most 180 answers, 64 texts
    # a request, at most ceil(210 / 64) = 4
    assert "  generate: exactly 5\n  rate: exactly 150\n" in result.stdout
    assert "  answer: at most 180\n  judge: at most 930\n" in result.stdout
    assert "  rationale: at most 930\n  self_assess: at most 180\n  embed: at most 4\n" in (
        result.stdout
    )
    assert "dry run: would make at most 2379 provider calls into data/runs/arena-demo" in (
        result.stdout
    )
    assert not Path("data").exists()


def test_dry_run_is_exact_without_a_filter(project: Path):
    _filter_off(project)
    result = _invoke("run", ARENA, "--dry-run")
    assert (
        "  answer: exactly 180\n  judge: exactly 930\n  rationale: at most 930\n"
        "  self_assess: exactly 180\n"
    ) in result.stdout


def test_run_writes_the_arena_files_and_reports_each_phase(project: Path):
    _filter_off(project)
    result = _invoke("run", ARENA, "--no-aggregate")
    assert result.exit_code == 0, result.stderr
    run_dir = Path("data/runs/arena-demo")
    for name in (ArenaFiles.QUESTIONS, ArenaFiles.QUESTION_RATINGS, ArenaFiles.ANSWERS,
                 ArenaFiles.JUDGMENTS, RunFiles.CALLS, RunFiles.MANIFEST):  # fmt: skip
        assert (run_dir / name).is_file(), name
    assert "generate: 5 calls done" in result.stderr
    assert "judge: " in result.stderr
    assert "30 questions (30 kept)" in result.stdout and f"-> {run_dir}" in result.stdout


def test_run_aggregates_at_the_end(project: Path, monkeypatch):
    _filter_off(project)
    seen = fake_aggregation(monkeypatch, game="arena", text="leaderboard here")
    result = _invoke("run", ARENA)
    assert result.exit_code == 0, result.stderr
    assert seen == [(Path("data/runs/arena-demo"), False)]
    assert result.stdout.rstrip().endswith("leaderboard here")


def test_a_rerun_reports_the_completed_run_and_a_changed_config_needs_overwrite(project: Path):
    _filter_off(project)
    first = _invoke("run", ARENA, "--no-aggregate")
    assert first.exit_code == 0
    calls = Path("data/runs/arena-demo/calls.jsonl").read_bytes()
    again = _invoke("run", ARENA, "--no-aggregate")
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("run arena-demo is already complete in data/runs/arena-demo")
    assert Path("data/runs/arena-demo/calls.jsonl").read_bytes() == calls
    edit(project / ARENA, "seed: 20250101", "seed: 20250102")
    changed = _invoke("run", ARENA, "--no-aggregate")
    assert changed.exit_code == 2
    assert changed.stderr == (
        "error: data/runs/arena-demo: run directory already exists and holds a run of another "
        "config (pass --overwrite to replace it)\n"
    )
    assert _invoke("run", ARENA, "--no-aggregate", "--overwrite").exit_code == 0


BAD_INPUTS = [
    pytest.param(
        ARENA, "      name: ember\n", "      name: ember\n      provider: litellm\n"
        "      batch: true\n",
        f"{ARENA}: players[4].batch: applies to providers openai, anthropic, mock only, "
        "not litellm",
        id="batch-without-a-batch-api",
    ),
    pytest.param(
        ARENA, "seed: 20250101", "seed: 20250101\nbatches: {price_factor: 2}",
        f"{ARENA}: batches.price_factor: ", id="batch-price-above-the-list-price",
    ),
    pytest.param(
        ARENA, "seed: 20250101", "seed: 20250101\nbatches: {poll_interval_s: 900}",
        f"{ARENA}: batches.max_poll_interval_s: must be at least poll_interval_s (900)",
        id="batch-polls-shrinking",
    ),
    pytest.param(
        ARENA, "seed: 20250101", "seed: 20250101\nrounds: 5", f"{ARENA}: rounds: unknown key",
        id="unknown-key",
    ),
    pytest.param(
        ARENA, "      name: ember\n", "      name: ember\n      colour: red\n",
        f"{ARENA}: players[4].colour: unknown key", id="unknown-player-key",
    ),
    pytest.param(
        ARENA, "rate: prompts/arena/rate.md", "rate: prompts/arena/rating.md",
        f"{ARENA}: prompts.rate: prompt file not found: prompts/arena/rating.md",
        id="missing-prompt-file",
    ),
    pytest.param(
        ARENA, "questions_per_player: 6", "questions_per_player: 12",
        f"{ARENA}: questions_per_player: must be 3 to 10 in dev mode (got 12)",
        id="questions-out-of-range-in-dev-mode",
    ),
    pytest.param(
        ARENA, "ref: agents/arena_player.yaml\n    overrides:\n      name: atlas",
        "ref: agents/arena.yaml\n    overrides:\n      name: atlas",
        f"{ARENA}: players[0].ref: file not found: agents/arena.yaml", id="missing-ref",
    ),
    pytest.param(
        "configs/agents/arena_player.yaml", "favour_bonus: 3.0", "favour_bonus: -11",
        "configs/agents/arena_player.yaml: mock.favour_bonus: ", id="bonus-below-minus-ten-in-ref",
    ),
    pytest.param(
        ARENA, "favours: borealis", "favours: zephyr",
        f"{ARENA}: players[3].mock.favours: unknown player 'zephyr'", id="unknown-favourite",
    ),
    pytest.param(
        ARENA, "name: ember\n", "name: ember\n      provider: oracle\n",
        f"{ARENA}: players[4].provider: unknown provider 'oracle'", id="unknown-provider",
    ),
    pytest.param(
        ARENA, "normalization: shift ", "normalization: median ",
        f"{ARENA}: normalization: ", id="unknown-normalization",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("file", "old", "new", "expected"), BAD_INPUTS)
@pytest.mark.parametrize("command", ["validate", "run"])
def test_bad_arena_input_is_one_line_exit_2_and_no_run_directory(
    project: Path, file: str, old: str, new: str, expected: str, command: str
):
    edit(project / file, old, new)
    args = ("run", ARENA, "--no-aggregate") if command == "run" else ("validate", ARENA)
    result = _invoke(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {expected}")
    assert "Traceback" not in result.stderr
    assert not Path("data").exists()


@pytest.mark.parametrize("dev", [False, True])
def test_too_few_players(project: Path, dev: bool):
    text = (project / ARENA).read_text()
    keep = text[
        : text.index("  - ref: agents/arena_player.yaml\n    overrides:\n      name: cirrus")
    ]
    if not dev:
        keep = keep.replace("dev: true ", "dev: false ")
    (project / ARENA).write_text(keep)
    result = _invoke("validate", ARENA)
    if dev:
        assert result.exit_code == 0, result.stderr
        assert "players (2):" in result.stdout
        return
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {ARENA}: players: at least 3 players are needed (or 2 with dev: true)\n"
    )


def test_replicates_do_not_apply_to_the_arena(project: Path):
    result = _invoke("run", ARENA, "--replicates", "2")
    assert result.exit_code == 2
    assert result.stderr == f"error: {ARENA}: --replicates does not apply to game arena\n"


def test_the_readme_demo_runs_with_the_dbt_filter(project: Path):
    result = _invoke("run", ARENA)
    assert result.exit_code == 0, result.stderr
    # 30 questions, floor(0.33 * 30) = 9 dropped; 21 * 6 = 126 answers; 21 * (6 * 6 - 5) = 651
    # judgements
    assert "30 questions (21 kept), 150 ratings, 126 answers, 651 judgements" in result.stdout
    run_dir = Path("data/runs/arena-demo")
    assert (run_dir / "question_quality.parquet").is_file()
    counts = count_columns(run_dir)
    assert len(counts) > 40
    assert [c for c in counts if c[2] not in {"BIGINT", "INTEGER"}] == []


def test_dry_run_estimates_tokens_and_cost_per_model(project: Path):
    edit(
        project / ARENA,
        "bootstrap: {n: 200}",
        "bootstrap: {n: 200}\n"
        "prices: {mock-arena: {input_per_mtok: 1000.0, output_per_mtok: 2000.0}}",
    )
    result = _invoke("run", ARENA, "--dry-run")
    assert result.exit_code == 0, result.stderr
    # 2375 players' calls (see above; the embedder's 4 are not in the estimate);
    # re-asks: 2375 x (1 + max_retries 2) = 7125
    assert "provider calls: 2375 (one per player and item of a phase, before re-asks); " in (
        result.stdout
    )
    assert "at most 7125 with re-prompts" in result.stdout
    # replies at max_tokens: generate 5 x 1500, rate 150 x 4, answer 180 x 100, judge 930 x 4,
    # rationale 930 x 40, self_assess 180 x 4: 7500 + 600 + 18000 + 3720 + 37200 + 720 = 67740
    assert "at most 67740 out" in result.stdout
    line = re.search(
        r"mock/mock-arena: 2375 calls, ~(\d+) tokens in, <= 67740 out, cost \$(\S+)",
        result.stdout,
    )
    assert line is not None, result.stdout
    tokens_in, cost = int(line[1]), float(line[2])
    # every rate, answer, judge, rationale and self_assess prompt counts its question at
    # 1500 / 6 = 250
    assert tokens_in > (150 + 180 + 930 + 930 + 180) * 250
    assert cost == pytest.approx((tokens_in * 1000 + 67740 * 2000) / 1e6, abs=1e-4)
    assert f"estimated cost: ${cost:.4f}" in result.stdout
    assert not Path("data").exists()


def test_resume_and_overwrite_exclude_each_other(project: Path):
    result = _invoke("run", ARENA, "--resume", "--overwrite", "--no-aggregate")
    assert result.exit_code == 2
    assert result.stderr == ("error: --resume continues a run directory; --overwrite replaces it\n")
    nothing = _invoke("run", ARENA, "--resume", "--no-aggregate")
    assert nothing.exit_code == 2 and "nothing to resume" in nothing.stderr


def test_dry_run_shows_batch_and_single_costs_side_by_side(project: Path):
    edit(
        project / ARENA,
        "bootstrap: {n: 200}",
        "bootstrap: {n: 200}\n"
        "prices: {mock-arena: {input_per_mtok: 1000.0, output_per_mtok: 2000.0}}",
    )
    edit(project / ARENA, "      name: atlas\n", "      name: atlas\n      batch: true\n")
    result = _invoke("run", ARENA, "--dry-run")
    assert result.exit_code == 0, result.stderr
    costs = {}
    for key in ("mock/mock-arena (batch)", "mock/mock-arena"):
        line = re.search(
            rf"  {re.escape(key)}: (\d+) calls, .* cost \$(\S+) \(in batches \$(\S+)\)\n",
            result.stdout,
        )
        assert line is not None, result.stdout
        single, batched = float(line[2]), float(line[3])
        assert batched == pytest.approx(single / 2, abs=1e-4)
        costs[key] = (int(line[1]), single, batched)
    # a phase's calls are spread over the participants taking part: atlas writes 1 of 5,
    # rates 150 / 6 = 25, answers 180 / 6 = 30, judges 930 / 6 = 155, gives 155 rationales and
    # 30 self-assessments: 396 of the 2375 calls
    assert costs["mock/mock-arena (batch)"][0] == 396
    own = costs["mock/mock-arena (batch)"][2] + costs["mock/mock-arena"][1]
    every_single = costs["mock/mock-arena (batch)"][1] + costs["mock/mock-arena"][1]
    total = re.search(
        r"estimated cost: \$(\S+) \(every call single: \$(\S+); every call in batches: \$(\S+)\)",
        result.stdout,
    )
    assert total is not None, result.stdout
    assert float(total[1]) == pytest.approx(own, abs=1e-3)
    assert float(total[2]) == pytest.approx(every_single, abs=1e-3)
    assert float(total[3]) == pytest.approx(every_single / 2, abs=1e-3)


@pytest.mark.parametrize("question_filter", [{"kind": "none"}, {"kind": "bottom_fraction"}])
def test_a_tournament_without_a_usable_question_says_so_and_completes(
    project: Path, question_filter: dict
):
    players = [
        {"ref": "agents/arena_player.yaml",
         "overrides": {"name": f"p{i}", "mock": {"invalid_rate": 1.0}}}
        for i in range(3)
    ]  # fmt: skip
    path = write_arena(
        project / "configs", players=players, max_retries=0, question_filter=question_filter
    )
    result = _invoke("run", str(path))
    assert result.exit_code == 0, result.stderr
    assert "warning: no player wrote a usable question" in result.stderr
    assert "0 questions (0 kept), 0 ratings, 0 answers, 0 judgements" in result.stdout
    calls = (Path("data/runs/small-arena") / RunFiles.CALLS).read_text().splitlines()
    assert len(calls) == 3 and all('"status":"invalid"' in c for c in calls)
