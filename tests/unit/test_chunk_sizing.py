"""A run played on a cluster is cut into a few chunks per worker thread, within bounds."""

from __future__ import annotations

from types import SimpleNamespace

from pdbench.pd.chunks import chunk_rounds_for, plan_chunks


def _plans(matches: int, rounds: int) -> list:
    return [SimpleNamespace(planned_rounds=rounds) for _ in range(matches)]


def test_a_large_run_gets_four_chunks_per_worker_thread() -> None:
    plans = _plans(1_000, 1_000)  # 1,000,000 rounds
    size = chunk_rounds_for(plans, slots=2)
    assert size == 125_000
    assert len(plan_chunks(plans, chunk_rounds=size)) == 8


def test_sixteen_workers_get_sixty_four_chunks_of_a_large_run() -> None:
    plans = _plans(11_000, 1_000)  # the 11M-round run cut into 16 chunks before
    assert len(plan_chunks(plans, chunk_rounds=chunk_rounds_for(plans, slots=16))) == 64


def test_a_chunk_is_never_smaller_than_the_floor_nor_larger_than_the_ceiling() -> None:
    assert chunk_rounds_for(_plans(10, 1_000), slots=16) == 50_000
    assert chunk_rounds_for(_plans(100_000, 1_000), slots=1) == 250_000
