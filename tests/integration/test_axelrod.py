"""pdbench against Axelrod, the reference library: the same moves, the same scores; and any
Axelrod strategy as a pdbench policy (the optional extra, a test dependency)."""

import sys
from collections import defaultdict
from pathlib import Path

import axelrod as axl
import pytest
from pdbench.errors import ConfigError
from pdbench.games import load_config
from pdbench.pd.agents import axelrod_policy
from pdbench.pd.agents.axelrod_policy import AxelrodPolicy
from pdbench.pd.agents.policy import make_policy
from pdbench.pd.experiment import run_experiment
from pdbench.pd.payoff import PayoffView
from pdbench.pd.records import PDFiles
from pdbench.storage.jsonl import read_jsonl

from tests.conftest import write_experiment

CLASSIC = PayoffView(R=3, S=0, T=5, P=1)
TURNS = 50
SIX = {
    "ALLC": axl.Cooperator,
    "ALLD": axl.Defector,
    "TFT": axl.TitForTat,
    "GRIM": axl.Grudger,
    "WSLS": axl.WinStayLoseShift,
    "GTFT": lambda: axl.GTFT(p=0),
}
SIX_AGENTS = [
    "ALLC",
    "ALLD",
    "TFT",
    "GRIM",
    "WSLS",
    {"type": "policy", "policy": "GTFT", "generous_prob": 0.0},
]
"""The six policies as round-robin entries, GTFT never forgiving (Axelrod's GTFT(p=0))."""


def _rounds_by_condition(run_dir: Path) -> dict[str, list[dict]]:
    by = defaultdict(list)
    for row in read_jsonl(run_dir / PDFiles.ROUNDS):
        by[row["condition"]].append(row)
    return by


@pytest.fixture(scope="module")
def six_round_robin(tmp_path_factory) -> dict[str, list[dict]]:
    """The six policies' round robin with self-play, 50 fixed rounds, through the engine."""
    folder = tmp_path_factory.mktemp("cross")
    path = write_experiment(
        folder,
        conditions=[],
        replicates=1,
        horizon={"type": "fixed", "n": TURNS},
        round_robin={"agents": SIX_AGENTS, "self_play": True},
    )
    result = run_experiment(load_config(path), output_dir=folder / "run")
    return _rounds_by_condition(result.run_dir)


PAIRS = [(a, b) for i, a in enumerate(SIX) for b in list(SIX)[i:]]


@pytest.mark.parametrize(("name_a", "name_b"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_every_pairing_plays_axelrods_moves_and_scores(six_round_robin, name_a, name_b):
    rows = six_round_robin[f"{name_a}_vs_{name_b}"]
    match = axl.Match((SIX[name_a](), SIX[name_b]()), turns=TURNS)
    expected = [(str(a), str(b)) for a, b in match.play()]
    ours = [(r["agent_a_action"], r["agent_b_action"]) for r in rows]
    for turn, (got, want) in enumerate(zip(ours, expected, strict=True), start=1):
        assert got == want, f"{name_a} vs {name_b}, turn {turn}: pdbench {got}, Axelrod {want}"
    assert [(r["agent_a_payoff"], r["agent_b_payoff"]) for r in rows] == match.scores()
    assert (rows[-1]["agent_a_cum_payoff"], rows[-1]["agent_b_cum_payoff"]) == match.final_score()


def test_the_cross_check_covers_all_twenty_one_pairings(six_round_robin):
    assert len(six_round_robin) == 21
    assert {len(rows) for rows in six_round_robin.values()} == {TURNS}


def _forgiveness_rate(next_action) -> float:
    # against ALLD every round after the first answers a defection: n = 19,999 draws
    moves = [next_action() for _ in range(19_999)]
    return moves.count("C") / len(moves)


def test_gtft_forgives_at_its_probability_like_axelrods():
    # n = 19,999 draws of p = 1/3: sd of the share = sqrt(p(1-p)/n) = sqrt(0.2222/19999)
    # = 0.00333; 4.5 sd = 0.0150. A rate outside 1/3 +- 0.015 is a bug (chance ~ 7e-6).
    tolerance = 0.015
    gtft = make_policy("GTFT", payoffs=CLASSIC)
    gtft.reset(2024)
    ours = _forgiveness_rate(lambda: gtft.next_action("D", "D", 1.0))
    assert abs(ours - 1 / 3) < tolerance
    player, opponent = axl.GTFT(), axl.Defector()
    match = axl.Match((player, opponent), turns=20_000, seed=2024)
    theirs = [str(a) for a, _ in match.play()[1:]].count("C") / 19_999
    assert abs(theirs - 1 / 3) < tolerance


def versus_test(policy, opponent_actions, expected, *, seed=None):
    """Axelrod's habit: play ``policy`` against a scripted opponent, name the failing turn."""
    policy.reset(seed)
    own = policy.first_action()
    moves = []
    for turn, opponent in enumerate(opponent_actions, start=1):
        if turn > 1:
            own = policy.next_action(moves[-1][0], moves[-1][1], CLASSIC.payoff(*moves[-1]))
        moves.append((own, opponent))
        assert moves[-1] == expected[turn - 1], f"turn {turn}: {moves[-1]} != {expected[turn - 1]}"


def test_an_axelrod_grudger_against_scripted_opponents():
    grudger = AxelrodPolicy(policy="axelrod:Grudger", payoffs=CLASSIC, known_length=5)
    versus_test(grudger, "CCDCC", [("C", "C"), ("C", "C"), ("C", "D"), ("D", "C"), ("D", "C")])
    versus_test(grudger, "CC", [("C", "C"), ("C", "C")])  # reset forgets the grudge


def test_an_axelrod_strategy_takes_its_parameters():
    # TF2T defects only after two defections in a row; a parameterised GTFT(p=0) is TFT
    tf2t = AxelrodPolicy(policy="axelrod:TitFor2Tats", payoffs=CLASSIC)
    versus_test(tf2t, "DCDDC", [("C", "D"), ("C", "C"), ("C", "D"), ("C", "D"), ("D", "C")])
    gtft0 = AxelrodPolicy(policy="axelrod:GTFT", params={"p": 0.0}, payoffs=CLASSIC)
    versus_test(gtft0, "DDC", [("C", "D"), ("D", "D"), ("D", "C")])


def test_a_stochastic_axelrod_strategy_is_determined_by_its_seed():
    def moves(seed):
        random = AxelrodPolicy(policy="axelrod:Random", params={"p": 0.5}, payoffs=CLASSIC)
        random.reset(seed)
        out = [random.first_action()]
        out += [random.next_action(out[-1], "C", 3.0) for _ in range(99)]
        return out

    assert moves(7) == moves(7)
    assert moves(7) != moves(8)
    assert 25 < moves(7).count("C") < 75


def test_axelrod_agents_in_a_run_are_seeded_by_name(project: Path):
    def run(out):
        path = write_experiment(
            project / "configs",
            conditions=[],
            horizon={"type": "fixed", "n": 30},
            round_robin={
                "agents": [
                    {"type": "policy", "policy": "axelrod:Random"},
                    {"type": "policy", "policy": "axelrod:Grudger"},
                    "TFT",
                ]
            },
        )
        result = run_experiment(load_config(path), output_dir=project / out)
        return [
            (r["condition"], r["agent_a_action"], r["agent_b_action"])
            for r in read_jsonl(result.run_dir / PDFiles.ROUNDS)
        ]

    first = run("one")
    assert first == run("two")
    assert {c for c, _, _ in first} == {
        "axelrod_Random_vs_axelrod_Grudger",
        "axelrod_Random_vs_TFT",
        "axelrod_Grudger_vs_TFT",
    }
    # Grudger and TFT both open C and never defect first
    assert all(a == b == "C" for c, a, b in first if c == "axelrod_Grudger_vs_TFT")


def _policy_config(project: Path, **agent):
    path = write_experiment(
        project / "configs",
        conditions=[
            {
                "name": "x",
                "agent_a": {"type": "policy", **agent},
                "agent_b": {"type": "policy", "policy": "TFT"},
            }
        ],
    )
    return load_config(path)


def test_an_unknown_strategy_lists_close_matches(project: Path):
    with pytest.raises(ConfigError) as info:
        _policy_config(project, policy="axelrod:Grudgr")
    message = str(info.value)
    assert "\n" not in message
    assert "conditions[0].agent_a.policy: unknown Axelrod strategy 'Grudgr'" in message
    assert "Grudger" in message


def test_wrong_parameters_name_the_accepted_ones(project: Path):
    with pytest.raises(ConfigError, match=r"Random takes no parameter 'q' \(parameters: p\)"):
        _policy_config(project, policy="axelrod:Random", params={"q": 1})
    with pytest.raises(ConfigError, match="params apply to axelrod: strategies only"):
        _policy_config(project, policy="TFT", params={"p": 1})


def test_strategies_that_inspect_their_opponent_are_refused(project: Path):
    with pytest.raises(ConfigError, match="'Darwin' inspects source of its opponent"):
        _policy_config(project, policy="axelrod:Darwin")


def test_a_missing_library_names_the_extra(project: Path, monkeypatch):
    monkeypatch.setitem(sys.modules, "axelrod", None)
    axelrod_policy._library.cache_clear()
    axelrod_policy._by_class_name.cache_clear()
    try:
        with pytest.raises(ConfigError) as info:
            _policy_config(project, policy="axelrod:Grudger")
        assert str(info.value).endswith(
            "the Axelrod library is not installed (install the extra: uv sync --extra axelrod)"
        )
    finally:
        axelrod_policy._library.cache_clear()
        axelrod_policy._by_class_name.cache_clear()
