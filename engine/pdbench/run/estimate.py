"""What a run will cost before any money is spent (``pdbench run --dry-run``), in either game.

:class:`CallEstimate` sums calls, tokens and cost per ``provider/model`` and prints them. Each
game counts its own calls and tokens (:mod:`pdbench.pd.estimate`, :mod:`pdbench.arena.plan`).
Unknown prices are named, never guessed. The cache is not consulted: a cached re-run costs
less. A game with batch mode (the arena) sets ``batch_price_factor``: every model's cost is
then shown as single calls and in batches side by side, and the total is the config's own
(batch players at the batch price) next to all-single and all-batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pdbench.number_text import plural
from pdbench.providers.pricing import Price, PriceTable

__all__ = ["CallEstimate", "ModelEstimate"]


@dataclass
class ModelEstimate:
    """Calls, tokens and cost of one ``provider/model``."""

    provider: str
    model: str
    calls: int = 0
    calls_with_reprompts: int = 0
    calls_with_retries: int = 0
    tokens_in: int = 0
    tokens_out_max: int = 0
    """Output ceiling, reasoning included."""
    tokens_reasoning_max: int = 0
    """The part of ``tokens_out_max`` that is reasoning (or thinking) budget."""
    price: Price | None = None
    batch: bool = False
    """Whether these calls go out in batches (``batch: true``)."""

    @property
    def cost_usd(self) -> float | None:
        """Estimated USD (expected calls; replies at ``max_tokens`` plus any reasoning budget)
        as single calls, None when unpriced."""
        if self.price is None:
            return None
        return self.price.cost(tokens_in=self.tokens_in, tokens_out=self.tokens_out_max)

    def cost_at(self, factor: float) -> float | None:
        """:attr:`cost_usd` times ``factor`` (a batch price), None when unpriced."""
        cost = self.cost_usd
        return None if cost is None else cost * factor


_COUNTS = (
    "calls",
    "calls_with_reprompts",
    "calls_with_retries",
    "tokens_in",
    "tokens_out_max",
    "tokens_reasoning_max",
)
"""The counters of :class:`ModelEstimate` that add up across models."""


@dataclass
class CallEstimate:
    """The whole run's estimate, per model and in total."""

    unit: str = "one per LLM move"
    """What one call is, as the first printed line says."""
    batch_price_factor: float | None = None
    """A batch request's price as a share of the list price (None: the game never batches)."""
    models: dict[str, ModelEstimate] = field(default_factory=dict)

    def add(
        self,
        *,
        provider: str,
        model: str,
        calls: int,
        max_retries: int,
        transport_retries: int,
        tokens_in_per_call: int,
        max_tokens: int,
        prices: PriceTable,
        reasoning_tokens: int = 0,
        batch: bool = False,
    ) -> None:
        """Count ``calls`` calls of ``provider/model``, each re-asked up to ``max_retries``
        times and each request retried up to ``transport_retries`` times; each reply may take
        ``max_tokens`` plus ``reasoning_tokens`` of reasoning; ``batch``: in batches."""
        key = f"{provider}/{model}" + (" (batch)" if batch else "")
        entry = self.models.get(key)
        if entry is None:
            entry = self.models[key] = ModelEstimate(
                provider=provider,
                model=model,
                price=prices.price(provider=provider, model=model)
                or (Price(0.0, 0.0) if provider == "mock" else None),
                batch=batch,
            )
        with_reprompts = calls * (1 + max_retries)
        entry.calls += calls
        entry.calls_with_reprompts += with_reprompts
        entry.calls_with_retries += with_reprompts * (1 + transport_retries)
        entry.tokens_in += calls * tokens_in_per_call
        entry.tokens_out_max += calls * (max_tokens + reasoning_tokens)
        entry.tokens_reasoning_max += calls * reasoning_tokens

    def totals(self) -> ModelEstimate:
        """The counts of every model summed (no price: each model is priced on its own)."""
        models = self.models.values()
        return ModelEstimate(
            provider="",
            model="",
            **{name: sum(getattr(m, name) for m in models) for name in _COUNTS},
        )

    def lines(self) -> list[str]:
        """What ``--dry-run`` prints."""
        totals = self.totals()
        out = [
            f"provider calls: {totals.calls} ({self.unit}); at most "
            f"{totals.calls_with_reprompts} with re-prompts after invalid replies, "
            f"{totals.calls_with_retries} with transport retries too",
            f"tokens: ~{totals.tokens_in} in, at most {totals.tokens_out_max} out"
            f"{_reasoning_part(totals.tokens_reasoning_max)} (prompts counted as characters / 4"
            + ("; every call reasoning to its whole budget" if totals.tokens_reasoning_max else "")
            + ")",
        ]
        unknown = []
        factor = self.batch_price_factor
        total = single = batched = 0.0
        for key, model in self.models.items():
            cost = model.cost_usd
            shown = f"${cost:.4f}" if cost is not None else "unknown (no price)"
            if cost is not None and factor is not None:
                shown += f" (in batches ${cost * factor:.4f})"
            out.append(
                f"  {key}: {plural(model.calls, 'call')}, ~{plural(model.tokens_in, 'token')} in, "
                f"<= {model.tokens_out_max} out{_reasoning_part(model.tokens_reasoning_max)}, "
                f"cost {shown}"
            )
            if cost is None:
                unknown.append(key)
                continue
            own = model.cost_at(factor) if model.batch and factor is not None else cost
            total += own or 0.0
            single += cost
            batched += cost * (factor or 1.0)
        line = f"estimated cost: ${total:.4f}"
        if factor is not None:
            line += f" (every call single: ${single:.4f}; every call in batches: ${batched:.4f})"
        if unknown:
            line += f" plus unknown for {', '.join(unknown)} (add them to prices:)"
        out.append(line)
        return out


def _reasoning_part(tokens: int) -> str:
    """``", of which <= N reasoning"`` when a reasoning budget counts, else nothing."""
    return f", of which <= {tokens} reasoning" if tokens else ""
