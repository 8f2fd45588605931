"""Loading configs: refs, overrides, and one-line errors naming file and field."""

import hashlib
import json
from pathlib import Path

import pytest
from pdbench.config.loader import deep_merge
from pdbench.errors import ConfigError
from pdbench.games import GAMES, load_config

from tests.conftest import edit, write_experiment

EXPERIMENT = "configs/experiment.yaml"


def test_the_demo_config_resolves_refs_and_deep_merges_overrides(project: Path):
    config = load_config(EXPERIMENT).config
    names = [c.name for c in config.conditions]
    cooperative = config.conditions[names.index("cooperative_llm_vs_alld")]
    agent = cooperative.agent_a
    assert (agent.type, agent.persona, agent.mock.strategy) == ("llm", "cooperative", "ALLC")
    # siblings of an overridden key keep the referenced file's values
    assert agent.mock.invalid_rate == 0.05
    assert agent.history_window == 5
    assert cooperative.agent_b.policy == "ALLD"


def test_metric_params_take_the_configured_collapse_parameters(project: Path):
    path = write_experiment(
        project / "configs",
        metrics={"collapse": {"k": 4, "threshold": 0.5}},
    )
    params = load_config(path).config.metric_params()
    assert (params["collapse_k"], params["collapse_threshold"]) == (4, 0.5)


def test_the_bootstrap_takes_its_n_and_a_seed_derived_by_name(project: Path):
    path = write_experiment(project / "configs", metrics={"bootstrap": {"n": 200}})
    config = load_config(path).config
    params = config.metric_params()
    assert params["bootstrap_n"] == 200
    # sha256 of the canonical JSON [seed, "bootstrap"], its first 8 bytes shifted to 63 bits
    key = json.dumps([config.seed, "bootstrap"], separators=(",", ":")).encode()
    assert params["bootstrap_seed"] == int.from_bytes(hashlib.sha256(key).digest()[:8]) >> 1


def test_metric_defaults_are_k_10_and_threshold_0_2(project: Path):
    params = load_config(write_experiment(project / "configs")).config.metric_params()
    assert params["collapse_k"] == 10 and params["collapse_threshold"] == 0.2
    assert params["bootstrap_n"] == 1000
    assert (params["ecosystem_generations"], params["moran_population"]) == (100, 10)
    assert params["moran_repetitions"] == 1000


def test_the_evolution_parameters_are_configured_and_bounded(project: Path):
    path = write_experiment(
        project / "configs", metrics={"evolution": {"generations": 5, "population": 3}}
    )
    params = load_config(path).config.metric_params()
    assert (params["ecosystem_generations"], params["moran_population"]) == (5, 3)
    with pytest.raises(ConfigError, match="population"):
        load_config(write_experiment(project / "configs", metrics={"evolution": {"population": 1}}))


def _error(path: str | Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_an_override_with_an_unknown_key_names_the_experiment_file(project: Path):
    edit(project / EXPERIMENT, "overrides: {policy: TFT}", "overrides: {policy: TFT, colour: red}")
    assert _error(EXPERIMENT) == f"{EXPERIMENT}: conditions[0].agent_a.colour: unknown key"


def test_an_override_is_validated_like_the_file(project: Path):
    edit(project / EXPERIMENT, "persona: cooperative,", "persona: stoic,")
    assert _error(EXPERIMENT) == (
        f"{EXPERIMENT}: conditions[3].agent_a.persona: unknown persona 'stoic' (known: "
        "cooperative, exploitative, generous_tft, grim_trigger, tit_for_tat, wsls)"
    )


def test_an_error_inside_a_referenced_file_names_that_file(project: Path):
    edit(project / "configs/agents/llm_default.yaml", "max_tokens: 16", "max_tokens: 0")
    message = _error(EXPERIMENT)
    assert message.startswith("configs/agents/llm_default.yaml: max_tokens: ")
    assert "referenced from configs/experiment.yaml: conditions[3].agent_a" in message


def test_a_missing_required_key(project: Path):
    edit(project / EXPERIMENT, "seed: 20240917\n", "")
    assert _error(EXPERIMENT) == f"{EXPERIMENT}: seed: required key is missing"


def test_a_fixed_horizon_needs_n_at_least_one(project: Path):
    path = write_experiment(project / "configs", horizon={"type": "fixed", "n": 0})
    assert _error(path).startswith("configs/small.yaml: horizon.n: ")


def test_an_unknown_horizon_type(project: Path):
    path = write_experiment(project / "configs", horizon={"type": "poisson"})
    assert _error(path) == (
        "configs/small.yaml: horizon: type must be one of: fixed, geometric (got 'poisson')"
    )


def test_an_unknown_agent_type(project: Path):
    edit(project / "configs/agents/policies.yaml", "type: policy", "type: oracle")
    assert "type must be one of: policy, llm (got 'oracle')" in _error(EXPERIMENT)


def test_policy_parameters_must_fit_the_policy(project: Path):
    edit(
        project / EXPERIMENT,
        "overrides: {policy: TFT}",
        "overrides: {policy: TFT, generous_prob: 0.2}",
    )
    assert _error(EXPERIMENT) == (
        f"{EXPERIMENT}: conditions[0].agent_a: generous_prob applies to GTFT only, not TFT"
    )


def test_a_prompt_with_an_unknown_placeholder(project: Path):
    edit(project / "configs/prompts/pd_round.md", "{history}", "{transcript}")
    message = _error(EXPERIMENT)
    assert message.startswith("configs/agents/llm_default.yaml: round_prompt: ")
    assert "unknown placeholder {transcript}" in message


def test_duplicate_condition_names(project: Path):
    edit(project / EXPERIMENT, "name: gtft_vs_wsls", "name: tft_vs_alld")
    assert "condition name 'tft_vs_alld' is used twice" in _error(EXPERIMENT)


def test_metric_names_of_older_configs_are_refused_in_one_line(project: Path):
    path = write_experiment(project / "configs", metrics={"names": ["cooperation_rate"]})
    assert _error(path) == (
        "configs/small.yaml: metrics: 'names' is no longer read: every metric is computed and "
        "the marts carry them all (docs/metrics.md); delete the key"
    )


def test_unknown_game(project: Path):
    path = write_experiment(project / "configs", game="chess")
    assert _error(path) == "configs/small.yaml: game: unknown game 'chess' (known: pd, arena)"
    assert {"pd", "arena"} <= set(GAMES)


def test_a_ref_with_extra_keys(project: Path):
    edit(
        project / EXPERIMENT,
        "{ref: agents/policies.yaml, overrides: {policy: TFT}}",
        "{ref: agents/policies.yaml, policy: TFT}",
    )
    assert _error(EXPERIMENT) == (
        f"{EXPERIMENT}: conditions[0].agent_a: a ref takes only 'ref' and 'overrides', not 'policy'"
    )


def test_a_ref_cycle_is_reported(project: Path):
    agents = project / "configs/agents"
    (agents / "loop.yaml").write_text("ref: loop.yaml\n")
    edit(
        project / EXPERIMENT,
        "{ref: agents/policies.yaml, overrides: {policy: TFT}}",
        "{ref: agents/loop.yaml}",
    )
    assert "cycle" in _error(EXPERIMENT)


def test_yaml_that_is_not_a_mapping(project: Path):
    (project / "configs/list.yaml").write_text("- a\n- b\n")
    assert _error("configs/list.yaml") == (
        "configs/list.yaml: expected a mapping of keys at the top level"
    )


def test_a_missing_config_file(project: Path):
    assert _error("configs/nope.yaml") == "configs/nope.yaml: file not found"


def test_deep_merge():
    base = {"a": 1, "mock": {"strategy": "TFT", "invalid_rate": 0.1}, "xs": [1, 2]}
    merged = deep_merge(base, {"mock": {"strategy": "ALLD"}, "xs": [3]})
    assert merged == {"a": 1, "mock": {"strategy": "ALLD", "invalid_rate": 0.1}, "xs": [3]}
    assert base["mock"]["strategy"] == "TFT"
