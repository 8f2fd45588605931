"""Identity leaks: a question or answer that names a player, its model or its maker.

Blind rating and judging break when a text says who wrote it ("As an AI developed by
OpenAI", a player's own name). The rule is deterministic text matching, case-insensitive and
on whole words (a term must not touch a letter, digit or ``_`` on either side), of:

- every player's **name** and **model** (``gpt-4o-mini``, ``mock-arena``);
- the **vendor words** of every player's provider and model: a provider or model that
  contains a key of :data:`VENDOR_WORDS` (``openai``, ``claude``, ...) brings that entry's
  words (``OpenAI``, ``ChatGPT``, ``GPT``; ``Anthropic``, ``Claude``; ...);
- the :data:`SELF_IDENTIFICATION_PHRASES`, whoever plays.

``leaked_identities`` lists the terms found (lowercase, sorted, once each). What happens to a
text that leaks is the config's ``identity_leaks``: ``flag`` (recorded only), ``scrub`` (each
match replaced by :data:`SCRUB_TOKEN` in what raters, answerers and judges are shown) or
``void`` (not rated, answered or judged; excluded from scoring, counted in the
``identity_leaks`` mart).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pdbench.providers.base import PROVIDERS

__all__ = [
    "SCRUB_TOKEN",
    "SELF_IDENTIFICATION_PHRASES",
    "VENDOR_WORDS",
    "LeakCheck",
    "LeakRule",
]

SCRUB_TOKEN = "[redacted]"
"""What a scrubbed term is replaced with."""

VENDOR_WORDS: dict[str, tuple[str, ...]] = {
    "openai": ("OpenAI", "ChatGPT", "GPT"),
    "gpt": ("OpenAI", "ChatGPT", "GPT"),
    "anthropic": ("Anthropic", "Claude"),
    "claude": ("Anthropic", "Claude"),
    "gemini": ("Google DeepMind", "DeepMind", "Gemini", "Bard"),
    "mistral": ("Mistral AI", "Mistral", "Mixtral"),
    "llama": ("Meta AI", "Llama"),
    "deepseek": ("DeepSeek",),
    "qwen": ("Alibaba", "Qwen"),
    "grok": ("xAI", "Grok"),
}
"""Maker or model-family key, found in a player's provider or model -> the words that name
that maker or its models (a provider's own words are also on its spec)."""

SELF_IDENTIFICATION_PHRASES: tuple[str, ...] = (
    "as an AI developed by",
    "as an AI language model",
    "as a large language model",
    "I am an AI assistant",
    "I am a language model",
    "trained by OpenAI",
    "developed by Anthropic",
    "created by Google",
)
"""Sentences a model uses to say what it is, matched like the other terms."""


@dataclass(frozen=True, slots=True)
class LeakCheck:
    """What the rule made of one text."""

    leaked: tuple[str, ...]
    """The terms found, lowercase, sorted."""
    shown: str
    """The text with every match replaced by :data:`SCRUB_TOKEN` (the text itself when
    nothing leaked)."""


def _vendor_words(provider: str, model: str) -> list[str]:
    """The provider's own words (its spec's ``vendor_words``) and those of every maker or
    model family named in the provider or the model (``litellm`` with ``openai/o3``)."""
    spec = PROVIDERS.get(provider)
    where = f"{provider} {model}".casefold()
    found = [word for key, words in VENDOR_WORDS.items() if key in where for word in words]
    return [*(spec.vendor_words if spec else ()), *found]


class LeakRule:
    """The terms of one tournament's players, compiled once."""

    def __init__(self, terms: Iterable[str]) -> None:
        unique = sorted({t.strip().casefold() for t in terms if t.strip()}, key=lambda t: -len(t))
        self.terms: tuple[str, ...] = tuple(unique)
        alternatives = "|".join(re.escape(term) for term in unique)
        self._pattern = (
            re.compile(rf"(?<![\w])(?:{alternatives})(?![\w])", re.IGNORECASE) if unique else None
        )

    @classmethod
    def for_players(cls, players: Iterable[tuple[str, str, str]]) -> LeakRule:
        """The rule for players given as ``(name, provider, model)``."""
        terms: list[str] = list(SELF_IDENTIFICATION_PHRASES)
        for name, provider, model in players:
            terms += [name, model, *_vendor_words(provider, model)]
        return cls(terms)

    def check(self, text: str) -> LeakCheck:
        """The terms ``text`` leaks, and the text scrubbed of them."""
        if self._pattern is None:
            return LeakCheck(leaked=(), shown=text)
        found = sorted({match.casefold() for match in self._pattern.findall(text)})
        if not found:
            return LeakCheck(leaked=(), shown=text)
        return LeakCheck(leaked=tuple(found), shown=self._pattern.sub(SCRUB_TOKEN, text))
