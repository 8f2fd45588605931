"""Compute budgets: one player entry expanded into variants by budget, played in one
tournament, and the score-against-cost curves dbt builds, with planted truth on the mock (a
bigger budget writes longer, better answers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from pdbench import cli
from pdbench.arena.marts import ArenaMart
from pdbench.errors import ConfigError
from pdbench.games import load_config
from typer.testing import CliRunner

from tests.conftest import CONFIGS, write_arena

runner = CliRunner()
SKILLS = {"small": 0.2, "medium": 0.5, "large": 0.9}


def _player(name: str, skill: float, **more: object) -> dict:
    overrides = {"name": name, "mock": {"answer_skill": skill}, **more}
    return {"ref": "agents/arena_player.yaml", "overrides": overrides}


def _budgeted(folder: Path, **fields: object) -> Path:
    budgets = [
        {"label": label, "max_tokens": {"answer": 64 * 4**i}, "mock": {"answer_skill": skill}}
        for i, (label, skill) in enumerate(SKILLS.items())
    ]
    players = [_player("rival", 0.6), _player("nova", 0.5, budgets=budgets)]
    return write_arena(folder, players=players, **fields)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("budgets")
    shutil.copytree(CONFIGS, folder / "configs")
    config = _budgeted(folder / "configs", run_id="budgets", bootstrap={"n": 20})
    run = folder / "run"
    result = runner.invoke(cli.app, ["run", str(config), "--output-dir", str(run)])
    assert result.exit_code == 0, result.output
    return run


def test_budgets_expand_into_variants_with_their_own_limits(project: Path):
    loaded = load_config(_budgeted(project / "configs"))
    config = loaded.config
    names = [p.name for p in config.players]
    assert names == ["rival", "nova-small", "nova-medium", "nova-large"]
    variants = config.players[1:]
    assert [(p.family, p.budget) for p in variants] == [("nova", label) for label in SKILLS]
    assert [p.mock.answer_skill for p in variants] == list(SKILLS.values())
    # a variant's own limit where it has one, the arena's elsewhere
    assert [config.tokens(p.name, "answer") for p in variants] == [64, 256, 1024]
    assert config.tokens("nova-large", "judge") == config.max_tokens.judge
    assert config.tokens("rival", "answer") == config.max_tokens.answer


def test_a_variant_without_a_label_is_one_line(project: Path):
    players = [_player("rival", 0.6), _player("nova", 0.5, budgets=[{"max_tokens": {}}])]
    path = write_arena(project / "configs", players=players)
    with pytest.raises(ConfigError, match=r"players\[1\]\.budgets\[0\]\.label: required"):
        load_config(path)


def test_the_curves_rise_with_the_budget(run_dir: Path):
    with duckdb.connect() as con:
        cursor = con.execute(
            f"select * from read_parquet('{run_dir / ArenaMart.BUDGET_CURVES}') "
            "where family_name = 'nova' order by answer_tokens"
        )
        names = [c[0] for c in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    # planted: more skill, longer and better answers, at every step up
    assert [r["budget"] for r in rows] == list(SKILLS)
    assert [r["player"] for r in rows] == [f"nova-{label}" for label in SKILLS]
    scores = [r["score"] for r in rows]
    assert scores == sorted(scores) and scores[0] < scores[-1]
    assert all(r["score_gain"] > 0 and r["score_gain_per_1k_tokens"] > 0 for r in rows[1:])
    assert rows[0]["score_gain"] is None
    # every call of the player is counted: each variant answered every question it was given
    calls = run_dir / "calls.jsonl"
    with duckdb.connect() as con:
        answered = dict(
            con.execute(
                f"select agent, count(*) from read_json_auto('{calls}') "
                "where phase = 'answer' group by agent"
            ).fetchall()
        )
    assert [r["n_answer_calls"] for r in rows] == [answered[r["player"]] for r in rows]
    # the best variant (skill 0.9 against the rival's 0.6) is on the frontier: nobody scored
    # more, whatever they spent
    assert rows[-1]["is_token_frontier"]


def test_the_viewer_draws_the_budgets(run_dir: Path, monkeypatch: pytest.MonkeyPatch):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setattr("sys.argv", ["viewer", "--run-dir", str(run_dir)])
    at = AppTest.from_file(str(Path(cli.STREAMLIT_APP)), default_timeout=60).run()
    at.sidebar.radio(key="arena_page").set_value("Budgets").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["player"]) == {"rival", "nova-small", "nova-medium", "nova-large"}
