import statistics

import pytest
from pdbench.pd.config import ExperimentConfig
from pdbench.pd.horizon import fixed_length, geometric_length
from pdbench.pd.plan import plan_matches


def test_fixed_is_exactly_n():
    assert fixed_length(1) == 1
    assert fixed_length(37) == 37
    with pytest.raises(ValueError):
        fixed_length(0)


def test_geometric_is_a_function_of_seed_and_replicate():
    first = [
        geometric_length(stop_prob=0.1, max_rounds=500, seed=11, replicate=r) for r in range(50)
    ]
    again = [
        geometric_length(stop_prob=0.1, max_rounds=500, seed=11, replicate=r) for r in range(50)
    ]
    other = [
        geometric_length(stop_prob=0.1, max_rounds=500, seed=12, replicate=r) for r in range(50)
    ]
    assert first == again
    assert first != other
    assert len(set(first)) > 10  # replicates do differ


def test_geometric_mean_is_one_over_p():
    # Geometric(p) on 1, 2, ...: mean 1/p = 10, sd sqrt(1-p)/p = 9.49; over 4000 draws the
    # mean has sd 0.15, so +-0.6 is four standard errors.
    draws = [
        geometric_length(stop_prob=0.1, max_rounds=10**6, seed=3, replicate=r) for r in range(4000)
    ]
    assert abs(statistics.fmean(draws) - 10) < 0.6
    # P(length == 1) = p = 0.1; sd of the share over 4000 draws is 0.0047
    assert abs(draws.count(1) / len(draws) - 0.1) < 0.02
    # P(length > 10) = 0.9 ** 10 = 0.349
    assert abs(sum(d > 10 for d in draws) / len(draws) - 0.349) < 0.03


def test_geometric_is_capped_and_stop_prob_one_plays_one_round():
    capped = [
        geometric_length(stop_prob=0.01, max_rounds=5, seed=1, replicate=r) for r in range(200)
    ]
    assert max(capped) == 5
    assert min(capped) >= 1
    assert {
        geometric_length(stop_prob=1.0, max_rounds=9, seed=1, replicate=r) for r in range(50)
    } == {1}


@pytest.mark.parametrize("stop_prob", [0.0, -0.1, 1.5])
def test_geometric_rejects_stop_prob_outside_0_1(stop_prob):
    with pytest.raises(ValueError):
        geometric_length(stop_prob=stop_prob, max_rounds=9, seed=1, replicate=0)


def _experiment(horizon: dict, names: list[str]) -> ExperimentConfig:
    policy = {"type": "policy", "policy": "TFT"}
    return ExperimentConfig.model_validate(
        {
            "run_id": "h",
            "seed": 5,
            "horizon": horizon,
            "conditions": [{"name": n, "agent_a": policy, "agent_b": policy} for n in names],
        }
    )


def test_all_conditions_of_a_replicate_play_the_same_number_of_rounds():
    config = _experiment(
        {"type": "geometric", "stop_prob": 0.2, "max_rounds": 100}, ["a", "b", "c"]
    )
    plans = plan_matches(config, replicates=6)
    by_replicate: dict[int, set[int]] = {}
    for plan in plans:
        by_replicate.setdefault(plan.replicate, set()).add(plan.planned_rounds)
    assert all(len(lengths) == 1 for lengths in by_replicate.values())
    # and adding a condition does not move anyone's length (no dependence on order)
    fewer = plan_matches(_experiment(config.horizon.model_dump(), ["c"]), replicates=6)
    assert [p.planned_rounds for p in fewer] == [
        p.planned_rounds for p in plans if p.condition == "c"
    ]


def test_match_seeds_depend_on_condition_and_replicate_not_on_order():
    config = _experiment({"type": "fixed", "n": 3}, ["a", "b"])
    reordered = _experiment({"type": "fixed", "n": 3}, ["b", "a"])
    seeds = {(p.condition, p.replicate): p.match_seed for p in plan_matches(config, replicates=3)}
    again = {
        (p.condition, p.replicate): p.match_seed for p in plan_matches(reordered, replicates=3)
    }
    assert seeds == again
    assert len(set(seeds.values())) == 6
