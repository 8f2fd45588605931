"""What a call cost: from the config's price table, else LiteLLM's price map, else unknown.

Prices are USD per million tokens, in and out. A model missing from both gives ``None``
(never a guess); LiteLLM's map is consulted only when ``litellm`` is installed. Reasoning and
thinking tokens are output tokens, and every provider already counts them in its output
tokens (OpenAI's ``completion_tokens``, Anthropic's ``output_tokens``): they are priced once,
through ``tokens_out``, never added again.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pdbench.providers.base import Usage

__all__ = ["Price", "PriceTable", "litellm_price"]


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, *, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """USD for these token counts (None when either count is unknown)."""
        if tokens_in is None or tokens_out is None:
            return None
        return (tokens_in * self.input_per_mtok + tokens_out * self.output_per_mtok) / 1e6


_LITELLM_PRICE_MAP = "model_prices_and_context_window_backup.json"


@lru_cache(maxsize=1)
def _litellm_price_map() -> dict[str, Any]:
    """LiteLLM's price map, read from the copy bundled with the package: the map LiteLLM
    itself uses offline, without the seconds its import takes (or any network)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None:
        return {}
    for folder in spec.submodule_search_locations or ():
        path = Path(folder) / _LITELLM_PRICE_MAP
        if path.is_file():
            prices: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return prices
    from pdbench.providers.litellm import litellm  # a LiteLLM that no longer bundles the file

    return dict(litellm.model_cost)


@lru_cache(maxsize=256)
def litellm_price(model: str) -> Price | None:
    """LiteLLM's price of ``model`` (or ``None``: not installed or not listed)."""
    prices = _litellm_price_map()
    entry = prices.get(model) or prices.get(model.split("/", 1)[-1])
    if not entry:
        return None
    cost_in = entry.get("input_cost_per_token")
    cost_out = entry.get("output_cost_per_token")
    if cost_in is None or cost_out is None:
        return None
    return Price(input_per_mtok=cost_in * 1e6, output_per_mtok=cost_out * 1e6)


class PriceTable:
    """Prices by model name (``model`` or ``provider/model``), with LiteLLM as a fallback."""

    def __init__(self, prices: Mapping[str, Price] | None = None, *, use_litellm: bool = True):
        self.prices = dict(prices or {})
        self.use_litellm = use_litellm

    def price(self, *, provider: str, model: str) -> Price | None:
        """The price of ``model`` at ``provider``, or None when nobody knows it."""
        found = self.prices.get(f"{provider}/{model}") or self.prices.get(model)
        if found is None and self.use_litellm and provider != "mock":
            found = litellm_price(model)
        return found

    def cost(self, usage: Usage, *, provider: str, model: str) -> float | None:
        """USD of one call that used ``usage``: the table's price, else what the provider
        reported (``usage.cost_usd``), else LiteLLM's price."""
        table = self.prices.get(f"{provider}/{model}") or self.prices.get(model)
        if table is None and usage.cost_usd is not None:
            return usage.cost_usd
        price = table if table is not None else self.price(provider=provider, model=model)
        return price.cost(tokens_in=usage.tokens_in, tokens_out=usage.tokens_out) if price else None
