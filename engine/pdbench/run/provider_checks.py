"""Checking, before anything is written, that every LLM of a config can be reached here.

Every game lists its LLMs' settings with the config field each sits at
(``conditions[0].agent_a``, ``players[2]``); :func:`check_llm_providers` fails on the first
whose provider cannot be built (unknown, or its SDK missing) or, when asked, has no API key,
with an error naming the file and the field to fix.
"""

from __future__ import annotations

from collections.abc import Iterable

from pdbench.config.providers import ProviderAccessConfig
from pdbench.errors import ConfigError
from pdbench.providers.base import key_problem, provider_problem

__all__ = ["check_llm_providers"]


def check_llm_providers(
    llms: Iterable[tuple[str, ProviderAccessConfig]], *, path: str, keys: bool = True
) -> None:
    """Raise a :class:`ConfigError` at ``<field>.provider`` (or ``<field>.api_key_env``, only
    with ``keys``) for the first ``(field, settings)`` of ``llms`` that cannot be called
    here."""
    for field, settings in llms:
        problem = provider_problem(settings.provider)
        if problem:
            raise ConfigError(problem, path=path, field=f"{field}.provider")
        problem = key_problem(settings.provider, settings=settings) if keys else None
        if problem:
            raise ConfigError(problem, path=path, field=f"{field}.api_key_env")
