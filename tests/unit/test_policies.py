"""Every policy against scripted opponents; expected action pairs written by hand."""

from collections.abc import Sequence

import pytest
from pdbench.pd.actions import Action, C, D, Observation, Turn
from pdbench.pd.agents.policy import (
    POLICIES,
    AllC,
    AllD,
    Alternator,
    DefectOnce,
    GenerousTitForTat,
    Grim,
    Policy,
    RandomCooperator,
    TitForTat,
    WinStayLoseShift,
    default_generous_prob,
    make_policy,
)
from pdbench.pd.payoff import PayoffView

CLASSIC = PayoffView(R=3, S=0, T=5, P=1)


def versus_test(
    policy: Policy,
    opponent_actions: Sequence[Action],
    expected: Sequence[tuple[Action, Action]],
    *,
    payoffs: PayoffView = CLASSIC,
    seed: int | None = None,
) -> None:
    """Play ``policy`` against a scripted opponent; ``expected`` is [(own, opponent), ...]."""
    assert len(opponent_actions) == len(expected)
    policy.reset(seed)
    history: list[Turn] = []
    total_own = total_opp = 0.0
    for turn, (opp, want) in enumerate(zip(opponent_actions, expected, strict=True), start=1):
        obs = Observation(
            round_index=turn, history=list(history), own_total=total_own, opponent_total=total_opp
        )
        own = policy.act(obs)
        assert (own, opp) == want, f"{policy.name}, turn {turn}: expected {want}, got {(own, opp)}"
        own_pay, opp_pay = payoffs.payoff(own, opp), payoffs.payoff(opp, own)
        history.append(Turn(own, opp, own_pay, opp_pay))
        total_own += own_pay
        total_opp += opp_pay


def test_the_registry_holds_the_nine_policies():
    assert list(POLICIES) == [
        "ALLC", "ALLD", "TFT", "GRIM", "GTFT", "WSLS", "URND", "ALT", "DEFECT_ONCE"
    ]  # fmt: skip


def test_allc():
    versus_test(AllC(), [C, D, D, C], [(C, C), (C, D), (C, D), (C, C)])


def test_alld():
    versus_test(AllD(), [C, D, C], [(D, C), (D, D), (D, C)])


def test_tft_opens_with_c_then_copies():
    versus_test(TitForTat(), [C, D, D, C, C], [(C, C), (C, D), (D, D), (D, C), (C, C)])


def test_tft_against_alld_defects_from_round_two():
    versus_test(TitForTat(), [D, D, D], [(C, D), (D, D), (D, D)])


def test_grim_never_forgives():
    versus_test(Grim(), [C, C, D, C, C], [(C, C), (C, C), (C, D), (D, C), (D, C)])


def test_grim_reset_forgets_the_trigger():
    grim = Grim()
    versus_test(grim, [D, C], [(C, D), (D, C)])
    versus_test(grim, [C, C], [(C, C), (C, C)])  # versus_test resets first


def test_grim_remembers_with_only_the_last_round_shown():
    # the runner keeps only `history_needed` (1) rounds: Grim must carry the trigger itself
    grim = Grim()
    grim.reset()
    rounds = [
        Turn(C, D, 0, 5),
        Turn(D, C, 5, 0),
        Turn(D, C, 5, 0),
    ]
    assert grim.act(Observation(round_index=1, history=[])) == C
    moves = [
        grim.act(Observation(round_index=t + 2, history=[turn])) for t, turn in enumerate(rounds)
    ]
    assert moves == [D, D, D]


def test_wsls_stays_after_a_win_and_shifts_after_a_loss():
    # r1 C/C: 3 >= R win -> stay C; r2 C/D: 0 lose -> shift D; r3 D/D: 1 lose -> shift C;
    # r4 C/C win -> C; r5 C/C win -> C; r6 C/D
    versus_test(
        WinStayLoseShift(win_threshold=3),
        [C, D, D, C, C, D],
        [(C, C), (C, D), (D, D), (C, C), (C, C), (C, D)],
    )


def test_wsls_keeps_exploiting_a_cooperator():
    # r1 C/D: 0 lose -> D; r2 D/C: 5 win -> stay D
    versus_test(WinStayLoseShift(win_threshold=3), [D, C, C], [(C, D), (D, C), (D, C)])


def test_wsls_threshold_is_configurable():
    # with threshold 5 mutual cooperation (3) is a loss: r1 C/C -> shift D; D/C = 5 win -> stay
    versus_test(WinStayLoseShift(win_threshold=5), [C, C, C], [(C, C), (D, C), (D, C)])


def test_wsls_default_threshold_is_r():
    assert make_policy("WSLS", payoffs=PayoffView(R=4, S=0, T=5, P=1)).win_threshold == 4


def test_gtft_with_no_generosity_is_tft():
    versus_test(
        GenerousTitForTat(generous_prob=0.0), [C, D, D, C], [(C, C), (C, D), (D, D), (D, C)]
    )


def test_gtft_with_full_generosity_always_cooperates():
    versus_test(GenerousTitForTat(generous_prob=1.0), [D, D, D], [(C, D), (C, D), (C, D)])


def test_gtft_always_answers_cooperation_with_cooperation():
    versus_test(GenerousTitForTat(generous_prob=0.5), [C, C, C, C], [(C, C)] * 4, seed=123)


def test_default_generous_prob_is_nowak_sigmund():
    # min(1 - (5-3)/(3-0), (3-1)/(5-1)) = min(1/3, 1/2)
    assert default_generous_prob(CLASSIC) == pytest.approx(1 / 3)
    # R=4: min(1 - 1/4, 3/4) = 0.75
    assert default_generous_prob(PayoffView(R=4, S=0, T=5, P=1)) == pytest.approx(0.75)
    assert make_policy("GTFT", payoffs=CLASSIC).generous_prob == pytest.approx(1 / 3)
    assert make_policy("GTFT", payoffs=CLASSIC, generous_prob=0.1).generous_prob == 0.1


def _forgiveness(seed: int, rounds: int = 3000) -> list[Action]:
    gtft = make_policy("GTFT", payoffs=CLASSIC)
    gtft.reset(seed)
    last = Turn(C, D, 0, 5)
    return [gtft.act(Observation(round_index=t + 2, history=[last])) for t in range(rounds)]


def test_gtft_forgives_at_its_rate_and_is_seeded():
    moves = _forgiveness(seed=9)
    # 3000 draws at 1/3: sd of the share 0.0086, tolerance ~4 sd
    assert abs(moves.count(C) / len(moves) - 1 / 3) < 0.035
    assert moves == _forgiveness(seed=9)
    assert moves != _forgiveness(seed=10)


def test_alternator_flips_its_own_last_move_whatever_the_opponent_does():
    versus_test(Alternator(), [D, D, C, C, D], [(C, D), (D, D), (C, C), (D, C), (C, D)])


def test_defect_once_defects_in_round_one_only():
    versus_test(DefectOnce(), [C, D, D, C], [(D, C), (C, D), (C, D), (C, C)])


def _urnd_moves(coop_prob: float, *, seed: int, rounds: int = 3000) -> list:
    policy = RandomCooperator(coop_prob=coop_prob)
    policy.reset(seed)
    history: list = []
    moves = []
    for index in range(rounds):
        move = policy.act(Observation(round_index=index + 1, history=history))
        moves.append(move)
        history.append(Turn(move, D, 0.0, 5.0))
    return moves


def test_urnd_cooperates_with_its_probability_whatever_happened_and_replays_with_its_seed():
    assert set(_urnd_moves(0.0, seed=1, rounds=200)) == {D}
    assert set(_urnd_moves(1.0, seed=1, rounds=200)) == {C}
    moves = _urnd_moves(0.3, seed=4)
    # 3000 draws at 0.3: sd of the share 0.0084, tolerance ~4 sd
    assert abs(moves.count(C) / len(moves) - 0.3) < 0.035
    assert moves == _urnd_moves(0.3, seed=4)
    assert moves != _urnd_moves(0.3, seed=5)


def test_urnd_is_built_with_its_coop_prob_and_refuses_one_outside_0_1():
    assert make_policy("URND", payoffs=CLASSIC, coop_prob=0.7).coop_prob == 0.7
    with pytest.raises(ValueError, match="coop_prob must be in"):
        RandomCooperator(coop_prob=1.5)


def test_unknown_policy_names_the_known_ones():
    with pytest.raises(ValueError, match="known: ALLC, ALLD, TFT, GRIM, GTFT, WSLS"):
        make_policy("TF2T", payoffs=CLASSIC)


@pytest.mark.parametrize("name", list(POLICIES))
def test_every_policy_opens_deterministically_and_names_itself(name):
    policy = make_policy(name, payoffs=CLASSIC)
    assert policy.name == name
    assert policy.__doc__
    policy.reset(1)
    first = policy.act(Observation(round_index=1, history=[]))
    policy.reset(1)
    assert policy.act(Observation(round_index=1, history=[])) == first
    # URND(0.5) with seed 1: the first draw is 0.134 < 0.5
    assert first == (D if name in ("ALLD", "DEFECT_ONCE") else C)
