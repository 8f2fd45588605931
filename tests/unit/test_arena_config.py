"""The arena config: refs and overrides, dev mode, one-line errors, the manifest's scoring."""

from pathlib import Path

import pytest
from pdbench.arena.config import ArenaConfig
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.rng import derive_seed

from tests.conftest import edit, write_arena

ARENA = "configs/arena.yaml"


def _error(path: str | Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_demo_loads_with_refs_and_overrides(project: Path):
    config = load_config(ARENA).config
    assert isinstance(config, ArenaConfig)
    assert [p.name for p in config.players] == [
        "atlas", "borealis", "cirrus", "dynamo", "ember", "fathom", "gale"
    ]  # fmt: skip
    assert [p.role for p in config.players] == ["player"] * 5 + ["judge", "answerer"]
    dynamo = config.players[3]
    assert (dynamo.mock.favours, dynamo.mock.answer_skill) == ("borealis", 0.45)
    # siblings of overridden keys keep the agent file's values
    assert (dynamo.model, dynamo.mock.latency_ms, dynamo.mock.signature) == ("mock-arena", 0, None)
    assert config.dev and config.questions_per_player == 6


def test_defaults_outside_dev_mode(project: Path):
    path = write_arena(project / "configs", players=3, dev=False)
    path.write_text(path.read_text().replace("questions_per_player: 3\n", ""))
    config = load_config(path).config
    assert config.questions_per_player == 100
    assert (config.max_tokens.generate, config.max_tokens.rate) == (8000, 8)
    assert (config.max_tokens.answer, config.max_tokens.judge) == (512, 8)
    assert (config.max_retries, config.normalization) == (2, "shift")


def test_scoring_is_the_contract_with_the_sql(project: Path):
    path = write_arena(
        project / "configs",
        players=3,
        question_filter={"kind": "min_score", "min_score": 6},
        normalization="zscore",
        bootstrap={"n": 50},
    )
    scoring = load_config(path).config.scoring()
    assert scoring["normalization"] == "zscore"
    assert scoring["question_filter"] == {"kind": "min_score", "fraction": 0.33, "min_score": 6.0}
    assert scoring["bootstrap"] == {"n": 50, "seed": derive_seed(11, "bootstrap")}
    assert scoring["anomaly"] == {
        "permutations": 1000,
        "fdr": 0.1,
        "min_effect": 0.5,
        "seed": derive_seed(11, "anomaly"),
    }
    assert scoring["min_judgments"] == 3
    assert scoring["identity_leaks"] == "flag"
    assert scoring["rationales"] == {"low": 0, "high": 10}
    assert [p["name"] for p in scoring["players"]] == ["p0", "p1", "p2"]
    second = scoring["players"][1]
    assert (second["provider"], second["model"], second["favours"]) == ("mock", "mock-arena", None)
    assert second["answer_skill"] == pytest.approx(0.7)
    assert set(second) == {
        "name", "provider", "model", "role", "answer_skill", "question_quality", "judge_leniency",
        "judge_noise", "favours", "favour_bonus", "invalid_rate", "self_identifies",
        "overconfidence", "trick_bite", "trick_robustness", "repetitive",
    }  # fmt: skip
    assert scoring["self_assessment"] is False
    assert scoring["tricks"] == {"share": 0.0, "fell_below": 3.0}
    assert scoring["diversity"] is None
    assert [p["role"] for p in scoring["players"]] == ["player"] * 3


def test_self_assessment_is_off_by_default_and_its_settings_are_checked(project: Path):
    config = load_config(write_arena(project / "configs", players=3)).config
    assert config.self_assessment is False
    assert config.max_tokens.self_assess == 8
    assert config.prompts.self_assess == "prompts/arena/self_assess.md"
    assert config.players[0].mock.overconfidence == 0.0
    on = write_arena(project / "configs", players=3, self_assessment=True)
    assert load_config(on).config.scoring()["self_assessment"] is True
    assert _error(write_arena(project / "configs", players=3, self_assessment="often")).startswith(
        "configs/small_arena.yaml: self_assessment: "
    )
    assert _error(
        write_arena(project / "configs", players=3, max_tokens={"self_assess": 0})
    ).startswith("configs/small_arena.yaml: max_tokens.self_assess: ")


def test_a_self_assess_template_without_the_answer(project: Path):
    edit(project / "configs/prompts/arena/self_assess.md", "Your answer: {answer}", "(hidden)")
    assert _error(ARENA) == (
        f"{ARENA}: prompts.self_assess: prompts/arena/self_assess.md: missing placeholder "
        "{answer}"
    )


def test_an_overconfidence_out_of_range(project: Path):
    edit(project / ARENA, "answer_skill: 0.9,", "answer_skill: 0.9, overconfidence: 11,")
    assert _error(ARENA).startswith(f"{ARENA}: players[0].mock.overconfidence: ")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"dev": False}, "players: at least 3 players are needed (or 2 with dev: true)"),
        ({}, "players: at least 2 players are needed in dev mode"),
    ],
)
def test_too_few_players(project: Path, fields: dict, expected: str):
    path = write_arena(project / "configs", players=1, **fields)
    assert _error(path) == f"{path}: {expected}"


def _with_roles(*roles: str) -> list[dict]:
    return [
        {"ref": "agents/arena_player.yaml", "overrides": {"name": f"p{i}", "role": role}}
        for i, role in enumerate(roles)
    ]


def test_roles_default_to_player_and_are_recorded(project: Path):
    path = write_arena(project / "configs", players=_with_roles("player", "judge", "player",
                                                                "answerer"))  # fmt: skip
    config = load_config(path).config
    assert [p.role for p in config.players] == ["player", "judge", "player", "answerer"]
    assert [(p.writes, p.evaluates, p.answers) for p in config.players] == [
        (True, True, True), (False, True, False), (True, True, True), (False, False, True)
    ]  # fmt: skip
    assert [p["role"] for p in config.scoring()["players"]] == [p.role for p in config.players]
    assert load_config(write_arena(project / "configs", players=2)).config.players[0].role == (
        "player"
    )


def test_an_unknown_role(project: Path):
    path = write_arena(project / "configs", players=_with_roles("player", "referee", "player"))
    assert _error(path) == (
        f"{path}: players[1].role: unknown role 'referee' (known: player, judge, answerer)"
    )


@pytest.mark.parametrize(
    ("roles", "fields", "expected"),
    [
        # a referee is not ranked: two answer, three are needed outside dev mode
        (("player", "player", "judge"), {"dev": False},
         "players: at least 3 players who answer (role player or answerer) are needed "
         "(or 2 with dev: true)"),
        (("player", "judge", "judge"), {},
         "players: at least 2 players who answer (role player or answerer) are needed in dev "
         "mode"),
        # one writer: its questions would have no rater but the referee, none without one
        (("player", "answerer", "answerer"), {},
         "players: at least 2 players with role player are needed (they write the questions, "
         "and each one's questions and answers need a rater and a judge who is not its "
         "author)"),
        (("player", "judge", "answerer", "answerer"), {"dev": False},
         "players: at least 2 players with role player are needed (they write the questions, "
         "and each one's questions and answers need a rater and a judge who is not its "
         "author)"),
    ],
)  # fmt: skip
def test_too_few_participants_in_a_role(
    project: Path, roles: tuple[str, ...], fields: dict, expected: str
):
    path = write_arena(project / "configs", players=_with_roles(*roles), **fields)
    assert _error(path) == f"{path}: {expected}"


def test_two_players_and_a_referee_or_an_answerer_are_enough(project: Path):
    for roles in (("player", "player", "judge"), ("player", "answerer", "player")):
        config = load_config(write_arena(project / "configs", players=_with_roles(*roles)))
        assert [p.role for p in config.config.players] == list(roles)
    outside_dev = write_arena(
        project / "configs", players=_with_roles("player", "player", "answerer", "judge"),
        dev=False,
    )  # fmt: skip
    assert len(load_config(outside_dev).config.players) == 4


def test_two_players_are_enough_in_dev_mode(project: Path):
    assert len(load_config(write_arena(project / "configs", players=2)).config.players) == 2


@pytest.mark.parametrize("count", [2, 11])
def test_questions_per_player_in_dev_mode(project: Path, count: int):
    path = write_arena(project / "configs", questions_per_player=count)
    assert _error(path) == (
        f"{path}: questions_per_player: must be 3 to 10 in dev mode (got {count})"
    )


def test_an_unknown_key_in_a_player_override(project: Path):
    edit(project / ARENA, "      name: atlas\n", "      name: atlas\n      colour: red\n")
    assert _error(ARENA) == f"{ARENA}: players[0].colour: unknown key"


def test_an_unknown_trait(project: Path):
    edit(project / ARENA, "mock: {answer_skill: 0.9,", "mock: {charisma: 1, answer_skill: 0.9,")
    assert _error(ARENA) == f"{ARENA}: players[0].mock.charisma: unknown key"


def test_a_trait_out_of_range(project: Path):
    edit(project / ARENA, "answer_skill: 0.9,", "answer_skill: 9,")
    assert _error(ARENA).startswith(f"{ARENA}: players[0].mock.answer_skill: ")


def test_a_missing_prompt_file(project: Path):
    edit(project / ARENA, "judge: prompts/arena/judge.md", "judge: prompts/arena/judging.md")
    assert _error(ARENA) == (
        f"{ARENA}: prompts.judge: prompt file not found: prompts/arena/judging.md"
    )


def test_a_template_without_the_answer(project: Path):
    edit(project / "configs/prompts/arena/judge.md", "Answer: {answer}", "Answer: (hidden)")
    assert _error(ARENA) == (
        f"{ARENA}: prompts.judge: prompts/arena/judge.md: missing placeholder {{answer}}"
    )


def test_a_template_naming_the_author(project: Path):
    edit(project / "configs/prompts/arena/rate.md", "Question:", "Written by {author}. Question:")
    assert _error(ARENA).startswith(
        f"{ARENA}: prompts.rate: prompts/arena/rate.md: unknown placeholder {{author}}"
    )


def test_favouring_an_unknown_player(project: Path):
    edit(project / ARENA, "favours: borealis", "favours: zephyr")
    assert _error(ARENA) == (
        f"{ARENA}: players[3].mock.favours: unknown player 'zephyr' "
        "(known: atlas, borealis, cirrus, dynamo, ember, fathom, gale)"
    )


def test_a_misspelt_player_gets_the_closest_name(project: Path):
    edit(project / ARENA, "favours: borealis", "favours: borealls")
    assert _error(ARENA) == (
        f"{ARENA}: players[3].mock.favours: unknown player 'borealls' "
        "(known: atlas, borealis, cirrus, dynamo, ember, fathom, gale); did you mean 'borealis'?"
    )


def test_a_player_name_used_twice(project: Path):
    edit(project / ARENA, "name: borealis", "name: Atlas")
    assert _error(ARENA) == f"{ARENA}: players[1].name: player name 'Atlas' is used twice"


def test_a_signature_naming_a_player(project: Path):
    edit(project / ARENA, "favours: borealis,", "favours: borealis, signature: Love from ember,")
    assert _error(ARENA) == (
        f"{ARENA}: players[3].mock.signature: must not contain a player name ('ember')"
    )


def test_a_category_with_brackets(project: Path):
    path = write_arena(project / "configs", categories=["math", "[logic]"])
    assert _error(path).startswith(f"{path}: categories: category '[logic]' must be")


def test_an_unknown_filter_kind(project: Path):
    path = write_arena(project / "configs", question_filter={"kind": "top_half"})
    assert _error(path).startswith(f"{path}: question_filter.kind: ")


def test_openai_model_is_the_model_of_every_player_that_names_none(project: Path):
    players = [
        {"name": "p0", "provider": "mock"},
        {"name": "p1", "provider": "mock", "model": "own-model"},
        {"ref": "agents/arena_player.yaml", "overrides": {"name": "p2"}},
    ]
    path = write_arena(project / "configs", players=players, openai_model="gpt-4o-mini")
    config = load_config(path).config
    assert [p.model for p in config.players] == ["gpt-4o-mini", "own-model", "mock-arena"]


def test_without_openai_model_a_player_must_name_its_model(project: Path):
    players = [{"name": "p0", "provider": "mock"}, {"name": "p1", "provider": "mock"}]
    message = _error(write_arena(project / "configs", players=players))
    assert "players[0].model" in message


def test_min_judgments_is_at_least_one(project: Path):
    message = _error(write_arena(project / "configs", players=3, min_judgments=0))
    assert "min_judgments" in message
    config = load_config(write_arena(project / "configs", players=3, min_judgments=7)).config
    assert config.scoring()["min_judgments"] == 7


def test_rationales_follow_scores_at_or_beyond_the_thresholds_and_null_turns_them_off(
    project: Path,
):
    both = load_config(write_arena(project / "configs", players=3)).config.rationales
    assert [score for score in range(11) if both.is_extreme(score)] == [0, 10]
    path = write_arena(project / "configs", players=3, rationales={"low": 2, "high": None})
    low_only = load_config(path).config
    assert [score for score in range(11) if low_only.rationales.is_extreme(score)] == [0, 1, 2]
    assert low_only.scoring()["rationales"] == {"low": 2, "high": None}
    off = load_config(write_arena(project / "configs", players=3, rationales=None)).config
    assert off.rationales is None and off.scoring()["rationales"] is None
    assert "rationales.high" in _error(
        write_arena(project / "configs", players=3, rationales={"high": 11})
    )


def test_tricks_are_off_by_default_and_checked(project: Path):
    config = load_config(write_arena(project / "configs", players=3)).config
    assert config.tricks.share == 0 and config.tricks.fell_below == 3.0
    path = write_arena(project / "configs", tricks={"share": 1.5})
    assert _error(path).startswith(f"{path}: tricks.share: ")
    assert f"{path}: tricks.kinds[0]: " in _error(
        write_arena(project / "configs", tricks={"kinds": ["pun"]})
    )
    message = _error(write_arena(project / "configs", tricks={"kinds": ["ambiguous"] * 2}))
    assert "tricks.kinds: " in message and "listed twice" in message
    assert "tricks.spice" in _error(write_arena(project / "configs", tricks={"spice": 1}))


def test_diversity_defaults_to_the_mock_embedder_and_reaches_the_scoring(project: Path):
    path = write_arena(project / "configs", players=3, diversity={})
    config = load_config(path).config
    assert config.scoring()["diversity"] == {
        "embedding": {"provider": "mock", "model": "mock-ngram", "base_url": None,
                      "api_key_env": None, "dim": 256, "batch_size": 64, "max_retries": 4,
                      "timeout_s": 60.0},
        "near_duplicate": 0.95,
        "weight": 0.0,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("diversity", "message"),
    [
        ({"embedding": {"provider": "anthropic"}},
         "diversity.embedding.provider: anthropic has no embedding endpoint"),
        ({"embedding": {"provider": "cohere"}},
         "diversity.embedding.provider: unknown embedding provider 'cohere'"),
        ({"near_duplicate": 1.5}, "diversity.near_duplicate: "),
        ({"weight": -1}, "diversity.weight: "),
        ({"embedding": {"api_key_env": "sk-123"}}, "diversity.embedding.api_key_env: "),
        ({"colour": "red"}, "diversity.colour: unknown key"),
    ],
)  # fmt: skip
def test_a_bad_diversity_setting_is_one_line_naming_the_field(
    project: Path, diversity: dict, message: str
):
    path = write_arena(project / "configs", players=3, diversity=diversity)
    error = _error(path)
    assert error.startswith(f"{path}: {message}") and "\n" not in error
