"""A whole experiment on the mock provider, read back through the schema."""

import json
import re
from pathlib import Path

import pytest
from pdbench.games import load_config
from pdbench.pd.experiment import run_experiment
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.records import MatchRecord, PDFiles, RoundRecord
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.manifest import canonical_sha256
from pdbench.storage.schema import CallRecord, RunFiles, RunManifest

from tests.conftest import write_experiment

TIMES = {"timestamp_utc", "started_at", "finished_at", "latency_ms"}


def _run(project: Path, out: str, **fields):
    config = write_experiment(project / "configs", **fields)
    return run_experiment(load_config(config), output_dir=project / out)


def _lines(run_dir: Path, name: str) -> list[dict]:
    return list(read_jsonl(run_dir / name))


def _without_times(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMES} for row in rows]


def test_every_file_is_written_and_every_line_fits_the_schema(project: Path):
    result = _run(project, "run")
    run_dir = result.run_dir
    rounds = _lines(run_dir, PDFiles.ROUNDS)
    matches = _lines(run_dir, PDFiles.MATCHES)
    calls = _lines(run_dir, RunFiles.CALLS)
    for row in rounds:
        RoundRecord.model_validate(row)
    for row in matches:
        MatchRecord.model_validate(row)
    for row in calls:
        CallRecord.model_validate(row)
    manifest = RunManifest.model_validate_json((run_dir / RunFiles.MANIFEST).read_text())
    # 3 conditions x 2 replicates x 12 fixed rounds
    assert len(matches) == 6
    assert len(rounds) == 72
    assert manifest.status == "completed"
    assert manifest.counts == {
        "rounds": 72,
        "matches": 6,
        "aborted_matches": 0,
        "calls": len(calls),
    }
    assert manifest.config_sha256 == canonical_sha256(manifest.config)
    assert manifest.metric_params["collapse_k"] == 10
    assert manifest.metric_params["collapse_threshold"] == 0.2
    assert manifest.config["replicates"] == 2
    assert manifest.python and manifest.platform and "pydantic" in manifest.versions
    # one LLM agent in llm_vs_gtft, two in llm_vs_llm: at least one call per LLM move
    assert len(calls) >= 2 * 12 * 3


def test_tft_against_alld_scores_as_worked_out_by_hand(project: Path):
    run_dir = _run(project, "run").run_dir
    rows = [r for r in _lines(run_dir, PDFiles.ROUNDS) if r["match_id"] == "tft_vs_alld/0"]
    assert [r["round_index"] for r in rows] == list(range(1, 13))
    assert "".join(r["agent_a_action"] for r in rows) == "C" + "D" * 11
    assert "".join(r["agent_b_action"] for r in rows) == "D" * 12
    # A: 0 then eleven times 1; B: 5 then eleven times 1
    assert (rows[-1]["agent_a_cum_payoff"], rows[-1]["agent_b_cum_payoff"]) == (11, 16)
    assert all(r["agent_a_valid"] and r["agent_a_attempts"] == 0 for r in rows)
    assert all(r["horizon_type"] == "fixed" and r["fixed_n"] == 12 for r in rows)


def test_same_seed_twice_gives_the_same_rows(project: Path):
    first = _run(project, "one").run_dir
    second = _run(project, "two").run_dir
    for name in (PDFiles.ROUNDS, PDFiles.MATCHES, RunFiles.CALLS):
        assert _without_times(_lines(first, name)) == _without_times(_lines(second, name)), name


def test_another_seed_gives_other_matches(project: Path):
    first = _lines(_run(project, "one").run_dir, PDFiles.MATCHES)
    other = _lines(_run(project, "two", seed=8).run_dir, PDFiles.MATCHES)
    assert {m["match_seed"] for m in first}.isdisjoint({m["match_seed"] for m in other})


def test_the_payoffs_the_prompt_states_are_the_payoffs_scored(project: Path):
    lopsided = {"CC": [3, 2], "CD": [0, 6], "DC": [5, -1], "DD": [1, 0.5]}
    matrix = PayoffMatrix(cc=(3, 2), cd=(0, 6), dc=(5, -1), dd=(1, 0.5))
    run_dir = _run(project, "run", payoffs=lopsided).run_dir
    checked = 0
    for row in _lines(run_dir, PDFiles.ROUNDS):
        assert (row["agent_a_payoff"], row["agent_b_payoff"]) == matrix.score(
            row["agent_a_action"], row["agent_b_action"]
        )
        for side, other in (("agent_a", "agent_b"), ("agent_b", "agent_a")):
            if row[f"{side}_kind"] != "llm":
                continue
            own, opp = row[f"{side}_action"], row[f"{other}_action"]
            line = re.search(
                rf"^- You play {own}, the other player plays {opp}: "
                r"you get (\S+), they get (\S+)\.$",
                row["prompts"][side]["system"],
                flags=re.MULTILINE,
            )
            assert line is not None
            assert (float(line[1]), float(line[2])) == (
                row[f"{side}_payoff"],
                row[f"{other}_payoff"],
            )
            checked += 1
    assert checked >= 3 * 24


def test_stored_prompts_show_exactly_the_window_and_the_replies(project: Path):
    path = write_experiment(project / "configs")
    loaded = load_config(path)
    run_dir = run_experiment(loaded, output_dir=project / "run").run_dir
    rows = [r for r in _lines(run_dir, PDFiles.ROUNDS) if r["match_id"] == "llm_vs_llm/1"]
    window = loaded.config.conditions[2].agent_a.history_window
    assert window == 5
    prompt = rows[7]["prompts"]["agent_a"]["round"]  # round 8: shows rounds 3..7
    shown = [int(n) for n in re.findall(r"^Round (\d+): you played", prompt, flags=re.MULTILINE)]
    assert shown == [3, 4, 5, 6, 7]
    assert prompt.startswith("Round 8.")
    assert rows[7]["raw_responses"]["agent_b"][-1] == json.dumps({"action": "D"})
    assert set(rows[7]["prompts"]) == {"agent_a", "agent_b"}


def test_invalid_replies_with_abort_are_recorded_as_an_aborted_match(project: Path):
    config = write_experiment(project / "configs")
    text = config.read_text().replace(
        "mock:\n        strategy: TFT",
        "on_invalid: abort\n      mock:\n        strategy: TFT\n        invalid_rate: 1.0",
    )
    assert text != config.read_text()
    config.write_text(text)
    result = run_experiment(load_config(config), output_dir=project / "run")
    matches = {m["match_id"]: m for m in _lines(result.run_dir, PDFiles.MATCHES)}
    aborted = matches["llm_vs_gtft/0"]
    assert (aborted["status"], aborted["rounds_played"], aborted["planned_rounds"]) == (
        "aborted",
        0,
        12,
    )
    assert "agent_a" in aborted["abort_reason"] and "3 attempts" in aborted["abort_reason"]
    assert matches["tft_vs_alld/0"]["status"] == "ok"
    rounds = _lines(result.run_dir, PDFiles.ROUNDS)
    assert not [r for r in rounds if r["match_id"] == "llm_vs_gtft/0"]
    calls = [c for c in _lines(result.run_dir, RunFiles.CALLS) if c["match_id"] == "llm_vs_gtft/0"]
    assert [(c["attempt"], c["status"]) for c in calls] == [
        (1, "invalid"),
        (2, "invalid"),
        (3, "invalid"),
    ]
    assert result.manifest.counts["aborted_matches"] == 2


def test_invalid_replies_with_fallback_are_played_but_never_valid(project: Path):
    config = write_experiment(project / "configs")
    text = config.read_text().replace(
        "mock:\n        strategy: TFT",
        "fallback_action: C\n      max_retries: 1\n      mock:\n        strategy: TFT\n"
        "        invalid_rate: 1.0",
    )
    config.write_text(text)
    run_dir = run_experiment(load_config(config), output_dir=project / "run").run_dir
    rows = [r for r in _lines(run_dir, PDFiles.ROUNDS) if r["condition"] == "llm_vs_gtft"]
    assert len(rows) == 24
    assert {(r["agent_a_action"], r["agent_a_valid"], r["agent_a_attempts"]) for r in rows} == {
        ("C", False, 2)
    }


def test_an_interrupted_run_is_marked_interrupted(project: Path):
    config = write_experiment(project / "configs", max_concurrency=1)

    def stop(plan, record):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_config(config), output_dir=project / "run", on_match_done=stop)
    manifest = RunManifest.model_validate_json((project / "run" / RunFiles.MANIFEST).read_text())
    assert manifest.status == "interrupted"
    assert manifest.counts["matches"] == 1
    assert manifest.finished_at is not None
