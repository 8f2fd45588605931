"""Round robins: pairings, names, the self-play flag, and how they sit beside conditions."""

from pathlib import Path

import pytest
from pdbench import cli
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.fingerprint import FingerprintConfig
from pdbench.pd.plan import plan_matches
from pdbench.pd.round_robin import pairing_name, pairings
from pydantic import ValidationError
from typer.testing import CliRunner

from tests.conftest import write_experiment

SIX = ["ALLC", "ALLD", "TFT", "GRIM", "GTFT", "WSLS"]


def test_pairings_without_and_with_self_play():
    assert pairings(3, self_play=False) == [(0, 1), (0, 2), (1, 2)]
    assert pairings(3, self_play=True) == [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    assert len(pairings(6, self_play=False)) == 15  # 6 * 5 / 2
    assert len(pairings(6, self_play=True)) == 21  # 6 * 7 / 2
    assert pairings(1, self_play=False) == []


def test_pairing_names_are_safe_condition_names():
    assert pairing_name("TFT", "WSLS") == "TFT_vs_WSLS"
    assert pairing_name("axelrod:Grudger", "mock/m:coop") == "axelrod_Grudger_vs_mock_m_coop"
    assert pairing_name("..x", "é") == "x_vs_agent"


def _load(project: Path, **fields):
    return load_config(write_experiment(project / "configs", **fields)).config


def test_six_policies_expand_into_fifteen_named_conditions(project: Path):
    config = _load(project, conditions=[], round_robin={"agents": SIX})
    names = [c.name for c in config.conditions]
    assert len(names) == 15
    assert names[:5] == [
        "ALLC_vs_ALLD",
        "ALLC_vs_TFT",
        "ALLC_vs_GRIM",
        "ALLC_vs_GTFT",
        "ALLC_vs_WSLS",
    ]
    assert names[-1] == "GTFT_vs_WSLS"
    first = config.conditions[0]
    assert (first.agent_a.policy, first.agent_b.policy) == ("ALLC", "ALLD")


def test_self_play_adds_each_agent_against_itself(project: Path):
    config = _load(project, conditions=[], round_robin={"agents": SIX, "self_play": True})
    names = [c.name for c in config.conditions]
    assert len(names) == 21
    assert [n for n in names if n.split("_vs_")[0] == n.split("_vs_")[1]] == [
        f"{p}_vs_{p}" for p in SIX
    ]


def test_round_robin_follows_hand_written_conditions_and_shares_the_rules(project: Path):
    config = _load(
        project,
        replicates=3,
        noise=0.1,
        round_robin={
            "agents": [
                "TFT",
                {"ref": "agents/policies.yaml", "overrides": {"policy": "GTFT", "name": "gen"}},
                {"ref": "agents/llm_default.yaml", "overrides": {"name": "llm"}},
            ],
            "noise": 0.02,
        },
    )
    names = [c.name for c in config.conditions]
    assert names == [
        "tft_vs_alld",
        "llm_vs_gtft",
        "llm_vs_llm",
        "TFT_vs_gen",
        "TFT_vs_llm",
        "gen_vs_llm",
    ]
    plans = plan_matches(config)
    assert len(plans) == 6 * 3
    # the horizon of a replicate is shared; match seeds follow (seed, "match", name, r)
    assert {p.planned_rounds for p in plans} == {12}
    assert plans[-1].match_id == "gen_vs_llm/2"
    assert {p.noise for p in plans if "_vs_" in p.condition and p.condition[0].isupper()} == {0.02}
    assert {p.noise for p in plans if p.condition == "tft_vs_alld"} == {0.1}


def test_two_agents_with_one_name_are_refused(project: Path):
    with pytest.raises(ConfigError, match="two agents are named 'TFT'"):
        _load(project, conditions=[], round_robin={"agents": ["TFT", "TFT"]})


def test_a_pairing_may_not_reuse_a_hand_written_name(project: Path):
    clash = {
        "name": "TFT_vs_ALLD",
        "agent_a": {"type": "policy", "policy": "GRIM"},
        "agent_b": {"type": "policy", "policy": "ALLD"},
    }
    with pytest.raises(ConfigError, match="'TFT_vs_ALLD' is used twice"):
        _load(project, conditions=[clash], round_robin={"agents": ["TFT", "ALLD"]})


def test_a_config_needs_conditions_or_a_round_robin(project: Path):
    with pytest.raises(ConfigError, match="no conditions"):
        _load(project, conditions=[])
    with pytest.raises(ConfigError, match="needs two agents, or self_play"):
        _load(project, conditions=[], round_robin={"agents": ["TFT"]})
    assert (
        len(
            _load(
                project, conditions=[], round_robin={"agents": ["TFT"], "self_play": True}
            ).conditions
        )
        == 1
    )


def test_the_snapshot_validates_again_to_the_same_conditions(project: Path):
    config = _load(project, conditions=[], round_robin={"agents": SIX[:3]})
    again = type(config).model_validate(config.model_dump(mode="json"))
    assert [c.name for c in again.conditions] == [c.name for c in config.conditions]


def test_validate_summarises_the_expansion(project: Path):
    path = write_experiment(project / "configs", round_robin={"agents": SIX, "self_play": True})
    result = CliRunner().invoke(cli.app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "round robin: 6 agents, self-play on -> 21 pairings" in result.output
    assert "conditions (24):" in result.output
    assert "  GRIM_vs_GTFT: GRIM (policy) vs GTFT (policy)" in result.output


def test_a_fingerprint_refuses_two_agents_of_one_name():
    with pytest.raises(ValidationError, match="two agents are named 'TFT'"):
        FingerprintConfig.model_validate({"agents": ["TFT", "TFT"]})
