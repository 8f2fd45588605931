"""What a run was started from, beyond its config's values: the bytes of every file it read
and the servers its LLMs reach.

A run that is stopped and resumed must finish under the inputs it started with, or its
matches would be played under two prompts, or against two servers, and still say
``completed``. :func:`run_inputs` gathers them when a run starts (the manifest keeps them)
and again at ``--resume``; :func:`changed_input` names the first that differs, and the
resume is refused in one line naming it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pdbench.config.providers import ProviderAccessConfig
from pdbench.errors import PdbenchError
from pdbench.providers.base import make_provider

__all__ = ["RunInputs", "changed_input", "llm_endpoints", "run_inputs"]


@dataclass(frozen=True)
class RunInputs:
    """Files read (path -> sha256) and endpoints (LLM config field -> servers) of a run."""

    files: dict[str, str] = field(default_factory=dict)
    endpoints: dict[str, list[Any]] = field(default_factory=dict)


def llm_endpoints(llms: Iterable[tuple[str, ProviderAccessConfig]]) -> dict[str, list[Any]]:
    """Config field -> the servers each LLM of a real provider reaches, as its adapter
    resolved them (:meth:`pdbench.providers.adapter.Adapter.endpoints`); the mock reaches
    none. An adapter that cannot be built here is left out: the run fails on it anyway."""
    endpoints: dict[str, list[Any]] = {}
    for where, settings in llms:
        if settings.provider == "mock":
            continue
        with contextlib.suppress(PdbenchError):
            client = make_provider(settings.provider, settings=settings, seed=0)
            resolve = getattr(client, "endpoints", None)
            if callable(resolve):
                endpoints[where] = list(resolve())
    return endpoints


def run_inputs(
    files: dict[str, str], llms: Iterable[tuple[str, ProviderAccessConfig]]
) -> RunInputs:
    """The inputs of a run of a config loaded from ``files`` whose LLMs are ``llms``."""
    return RunInputs(files=dict(files), endpoints=llm_endpoints(llms))


def changed_input(recorded: RunInputs, now: RunInputs) -> str | None:
    """What differs between the inputs a run started with and those of now, in a phrase;
    None when nothing does. A run recorded before inputs were kept has none to compare."""
    for path, sha256 in recorded.files.items():
        current = now.files.get(path)
        if current is None:
            return f"{path} is no longer read by the config (it was when the run started)"
        if current != sha256:
            return (
                f"{path} changed since the run started (sha256 {sha256[:12]}, now {current[:12]})"
            )
    if recorded.files:
        for path in now.files.keys() - recorded.files.keys():
            return f"{path} is read now but was not when the run started"
    for where, servers in recorded.endpoints.items():
        current_servers = now.endpoints.get(where)
        if current_servers != servers:
            return (
                f"{where} reaches {_servers(current_servers)} now, not {_servers(servers)} as "
                "when the run started"
            )
    return None


def _servers(servers: list[Any] | None) -> str:
    if not servers:
        return "no server"
    return ", ".join(str(s) for s in servers)
