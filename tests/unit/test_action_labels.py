"""Neutral action labels (``actions: {C: J, D: F}``): the prompts say J and F and never
cooperate or defect, replies are read in the labels, the mock plays through them, and the
records still say C and D."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from random import Random

import pytest
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.actions import C, D, Turn
from pdbench.pd.agents.prompts import PromptTemplates, render_round, render_system
from pdbench.pd.experiment import run_experiment
from pdbench.pd.labels import ActionLabels
from pdbench.pd.mock_player import PDMockPlayer
from pdbench.pd.moves import extract_action
from pdbench.pd.payoff import PayoffMatrix
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl
from pdbench.storage.schema import RunFiles, RunManifest

from tests.conftest import CONFIGS, write_experiment

JF = ActionLabels(C="J", D="F")
AKATA = PayoffMatrix(cc=(8, 8), cd=(0, 10), dc=(10, 0), dd=(5, 5))
TEMPLATES = PromptTemplates.from_files(
    system_path=CONFIGS / "prompts/pd_system.md",
    round_path=CONFIGS / "prompts/pd_round.md",
    persona_path=None,
)


def _prompts(history, *, labels=JF, output_format="token"):
    system = render_system(
        TEMPLATES, matrix=AKATA, side="agent_a", output_format=output_format, labels=labels
    )
    prompt = render_round(
        TEMPLATES,
        round_index=len(history) + 1,
        turns=history,
        history_window=10,
        include_totals=True,
        own_total=0,
        opponent_total=0,
        output_format=output_format,
        labels=labels,
    )
    return system, prompt


def test_the_prompts_name_the_labels_and_never_cooperate_or_defect():
    system, prompt = _prompts([Turn(C, D, 0.0, 10.0)])
    text = (system + prompt).lower()
    assert "cooperat" not in text and "defect" not in text
    assert "between two actions, J and F," in system
    assert "- You play J, the other player plays F: you get 0, they get 10." in system
    assert "Round 1: you played J, the other player played F; you got 0, they got 10." in prompt
    assert prompt.endswith("Reply with exactly one of J or F. Output nothing else.")


def test_without_labels_the_prompts_are_as_before():
    system, _ = _prompts([], labels=ActionLabels())
    assert "between two actions, C (cooperate) and D (defect), without" in system
    assert system.endswith("Reply with exactly one letter: C to cooperate or D to defect. "
                           "Output nothing else.")  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "output_format", "expected"),
    [
        ("J", "token", "C"),
        (" f\n", "token", "D"),
        ("C", "token", None),  # C is no label here
        ("cooperate", "lenient", None),
        ('{"action": "F"}', "json", "D"),
        ('{"action": "C"}', "json", None),
        ("I pick the first.\nACTION: J", "reasoning", "C"),
        ("**F**", "lenient", "D"),
        ("My choice: J", "lenient", "C"),
        ("J or F", "lenient", None),
    ],
)
def test_a_reply_is_read_in_the_labels(reply, output_format, expected):
    found = extract_action(reply, output_format=output_format, labels=JF)
    assert found.value == expected


@pytest.mark.parametrize("output_format", ["token", "json", "reasoning"])
def test_the_mock_reads_the_labels_from_the_prompt_and_answers_in_them(output_format):
    # GRIM after the opponent's F in round 1 defects: answers F, read back as D
    system, prompt = _prompts([Turn(C, D, 0.0, 10.0)], output_format=output_format)
    reply = PDMockPlayer(strategy="GRIM", output_format=output_format).reply(
        system=system, prompt=prompt, rng=Random(1)
    )
    assert "D" not in reply.replace("ACTION", "")
    assert extract_action(reply, output_format=output_format, labels=JF).value == "D"


def test_labels_must_be_two_distinct_words(tmp_path: Path, project: Path):
    for actions, message in [
        ({"C": "J"}, "give a label for both actions"),
        ({"C": "J", "D": "j"}, "different labels"),
        ({"C": "go on", "D": "F"}, "one word"),
    ]:
        path = write_experiment(project / "configs", actions=actions)
        with pytest.raises(ConfigError, match=message):
            load_config(path)


def test_a_mock_run_with_labels_plays_in_them_and_records_c_and_d(project: Path):
    path = write_experiment(project / "configs", actions={"C": "J", "D": "F"}, replicates=1)
    loaded = load_config(path)
    result = run_experiment(loaded, output_dir=project / "run")
    rounds = list(read_jsonl(result.run_dir / PDFiles.ROUNDS))
    llm_rounds = [r for r in rounds if r["condition"] == "llm_vs_gtft"]
    assert llm_rounds
    for line in llm_rounds:
        assert line["agent_a_action"] in ("C", "D")
        replies = line["raw_responses"]["agent_a"]
        assert all(reply.strip() in ("J", "F") for reply in replies if line["agent_a_valid"])
        # the rules say J and F (the persona, the user's own words, may say more)
        assert "between two actions, J and F," in line["prompts"]["agent_a"]["system"]
    # the mock plays TFT through the labels: it answers the opponent's last move, in J/F
    for before, after in itertools.pairwise(llm_rounds):
        if after["agent_a_valid"]:
            assert after["agent_a_action"] == before["agent_b_action"]
    manifest = RunManifest.model_validate_json((result.run_dir / RunFiles.MANIFEST).read_text())
    assert manifest.config["actions"] == {"C": "J", "D": "F"}
    calls = [json.loads(line) for line in (result.run_dir / RunFiles.CALLS).open()]
    assert {call["status"] for call in calls} <= {"ok", "invalid"}


def test_akatas_design_runs_on_the_mock_in_j_and_f(project: Path):
    loaded = load_config(project / "configs" / "replicate" / "akata_pd.yaml")
    assert loaded.config.actions == {"C": "J", "D": "F"}
    assert loaded.config.payoffs.DC == (10, 0)
    result = run_experiment(loaded, output_dir=project / "akata", replicates=1)
    rounds = list(read_jsonl(result.run_dir / PDFiles.ROUNDS))
    once = [r for r in rounds if r["match_id"] == "llm_vs_defect_once/0"]
    # the opponent plays F in round 1 only; the mock plays GRIM: J, then F for good
    assert "".join(r["agent_b_action"] for r in once) == "DCCCCCCCCC"
    assert "".join(r["agent_a_action"] for r in once) == "CDDDDDDDDD"
    assert [r["raw_responses"]["agent_a"][-1] for r in once[:2]] == ["J", "F"]
    alternating = [r["agent_b_action"] for r in rounds if r["match_id"] == "llm_vs_alternating/0"]
    assert "".join(alternating) == "CDCDCDCDCD"


def test_fontanas_design_pairs_the_model_with_urnd_for_every_alpha(project: Path):
    loaded = load_config(project / "configs" / "replicate" / "fontana_urnd.yaml")
    config = loaded.config
    assert [c.agent_b.display_name for c in config.conditions] == [
        f"URND({tenths / 10:g})" for tenths in range(11)
    ]
    assert {c.agent_a.history_window for c in config.conditions} == {10}
    assert config.horizon.n == 100
