"""The provider runtime of a run, built from the config's provider layer (both games).

:class:`pdbench.config.ProviderLayerConfig` holds what every game shares: ``max_concurrency``,
``max_concurrency_per_model``, ``prices`` and ``cache_path``. :func:`build_runtime` turns it
into the one :class:`pdbench.providers.runtime.ProviderRuntime` every gateway of the run uses;
:func:`price_table` is the same price table for ``--dry-run``'s estimate.
"""

from __future__ import annotations

from collections.abc import Callable

from pdbench.config.providers import ProviderLayerConfig
from pdbench.providers.cache import ResponseCache
from pdbench.providers.pricing import Price, PriceTable
from pdbench.providers.runtime import ProviderRuntime

__all__ = ["build_runtime", "price_table"]


def price_table(config: ProviderLayerConfig) -> PriceTable:
    """The config's ``prices:`` (LiteLLM's map as the fallback)."""
    return PriceTable(
        {
            name: Price(input_per_mtok=p.input_per_mtok, output_per_mtok=p.output_per_mtok)
            for name, p in config.prices.items()
        }
    )


def build_runtime(
    config: ProviderLayerConfig,
    *,
    seed: int,
    wants_cache: bool,
    sleep: Callable[[float], None] | None = None,
) -> ProviderRuntime:
    """The runtime of a run; the cache file is opened only when ``wants_cache`` (``--no-cache``
    is off and at least one agent or player uses the cache)."""
    runtime = ProviderRuntime(
        seed=seed,
        cache=ResponseCache(config.cache_path) if wants_cache else None,
        prices=price_table(config),
        limits=dict(config.max_concurrency_per_model),
    )
    if sleep is not None:
        runtime.sleep = sleep
    return runtime
