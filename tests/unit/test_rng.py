from pdbench.rng import derive_seed, stream


def test_same_names_same_seed_regardless_of_what_ran_before():
    first = derive_seed(42, "horizon", 3)
    for i in range(10):
        derive_seed(42, "agent", i)
    assert derive_seed(42, "horizon", 3) == first


def test_every_part_of_the_name_matters():
    seeds = {
        derive_seed(42, "horizon", 3),
        derive_seed(43, "horizon", 3),
        derive_seed(42, "horizon", 4),
        derive_seed(42, "match", 3),
        derive_seed(42, "horizon", "3"),
    }
    assert len(seeds) == 5


def test_streams_are_reproducible():
    one, two = stream(1, "x"), stream(1, "x")
    assert [one.random() for _ in range(5)] == [two.random() for _ in range(5)]
    a, b = stream(1, "x"), stream(1, "y")
    assert [a.random() for _ in range(3)] != [b.random() for _ in range(3)]
