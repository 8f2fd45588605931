"""How the arena reaches its players: providers behind the shared gateway and runtime.

Every call of every phase goes through a :class:`pdbench.providers.gateway.ProviderGateway`
on the run's one :class:`pdbench.providers.runtime.ProviderRuntime` (cache, prices, per-model
limits, back-off clock, cancel), exactly as a PD agent's calls do.

Calls of one phase run on several threads. A provider client keeps per-call state (its
``last_usage``), so :class:`PlayerPool` lends each task a client of its player that no other
task holds, and takes it back when the task is done: a tournament builds at most
``max_concurrency`` clients per player, whose connections stay open from phase to phase. The
mock is a pure function of its seed and the prompt, and a real client is only a connection,
so which task borrows which client changes nothing. Every task gets its own gateway, whose
``calls.jsonl`` records go to the task (the runner writes them in task order).

A player with ``batch: true`` has a batch lane (:mod:`pdbench.providers.batch_lane`) on a
provider client of its own: its gateways queue requests there, and the runner submits and
collects them between rounds of the phase.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pdbench.arena.config import ArenaConfig, ArenaPlayerConfig
from pdbench.arena.mock_player import SIGN_OFFS, ArenaMockSettings
from pdbench.arena.tasks import PlayerClient
from pdbench.config.loader import LoadedConfig
from pdbench.providers.base import ProviderClient, make_provider
from pdbench.providers.batch import BatchClient
from pdbench.providers.batch_lane import BatchLane
from pdbench.providers.gateway import gateway_for
from pdbench.providers.retry import RetryPolicy
from pdbench.providers.runtime import ProviderRuntime
from pdbench.rng import derive_seed
from pdbench.run.provider_checks import check_llm_providers

__all__ = ["PlayerPool", "arena_llm_fields", "check_arena_providers", "mock_settings"]


def arena_llm_fields(config: ArenaConfig) -> list[tuple[str, Any]]:
    """``(config field, player config)`` of every player, in config order."""
    return [(f"players[{i}]", player) for i, player in enumerate(config.players)]


def check_arena_providers(loaded: LoadedConfig, *, keys: bool = True) -> None:
    """Fail before anything is written if a player's provider cannot be built here (its SDK
    is missing, or, with ``keys``, its API key)."""
    check_llm_providers(arena_llm_fields(loaded.config), path=loaded.path, keys=keys)


def mock_settings(config: ArenaConfig, index: int) -> ArenaMockSettings:
    """The mock of player ``index``: its traits, its signature, and the signature (never the
    name) of the player it favours."""
    signatures = [
        p.mock.signature or SIGN_OFFS[i % len(SIGN_OFFS)] for i, p in enumerate(config.players)
    ]
    names = [p.name for p in config.players]
    player = config.players[index]
    mock = player.mock
    favoured = signatures[names.index(mock.favours)] if mock.favours else None
    strengths = tuple(
        (signatures[i], p.mock.strength)
        for i, p in enumerate(config.players)
        if p.mock.strength is not None
    )
    return ArenaMockSettings(
        traits=mock,
        signature=signatures[index],
        favoured_signature=favoured,
        identity=f"I am {player.name}, running on {player.model}.",
        strengths=strengths,
    )


class PlayerPool:
    """The players of a tournament, ready to be asked from any thread (see the module)."""

    def __init__(self, config: ArenaConfig, *, runtime: ProviderRuntime) -> None:
        self.config = config
        self.runtime = runtime
        self._players: dict[str, tuple[int, ArenaPlayerConfig]] = {
            p.name: (i, p) for i, p in enumerate(config.players)
        }
        self._idle: dict[str, list[ProviderClient]] = {p.name: [] for p in config.players}
        self._lock = threading.Lock()
        self.lanes: dict[str, BatchLane] = {
            p.name: self._lane(p) for p in config.players if p.batch
        }
        """The batch lane of every player with ``batch: true``, by name."""

    def _lane(self, player: ArenaPlayerConfig) -> BatchLane:
        client: BatchClient = self._build(player.name)  # type: ignore[assignment]
        return BatchLane(
            client=client,
            provider=player.provider,
            model=player.model,
            runtime=self.runtime,
            polling=self.config.batches.polling(),
            retry=RetryPolicy.of(player.transport),
        )

    def _build(self, name: str) -> ProviderClient:
        index, player = self._players[name]
        settings = mock_settings(self.config, index) if player.provider == "mock" else player
        return make_provider(
            player.provider,
            settings=settings,
            seed=derive_seed(self.config.seed, "provider", "arena", name),
        )

    @contextmanager
    def _provider(self, name: str) -> Iterator[ProviderClient]:
        """A provider of player ``name`` that no one else holds until the block ends."""
        with self._lock:
            idle = self._idle[name]
            client = idle.pop() if idle else None
        if client is None:
            client = self._build(name)
        try:
            yield client
        finally:
            with self._lock:
                self._idle[name].append(client)

    @contextmanager
    def client(
        self, name: str, *, record: Callable[[dict[str, Any]], None], phase: str | None = None
    ) -> Iterator[PlayerClient]:
        """Player ``name`` for one task of ``phase``, for the block: a provider lent to the
        task behind a fresh gateway whose call records go to ``record`` (and its batch lane,
        in a batch phase)."""
        _, player = self._players[name]
        with self._provider(name) as provider:
            gateway = gateway_for(
                player,
                client=provider,
                run_id=self.config.run_id,
                record=record,
                runtime=self.runtime,
                batch=self.lanes.get(name) if phase in self.config.batch_phases else None,
            )
            yield PlayerClient(gateway=gateway, temperature=player.temperature)
