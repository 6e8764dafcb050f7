"""Three current models' list prices, and what one call costs on each.

Prices are the providers' list prices as :data:`PRICES_SOURCE` records them, in US dollars
per million tokens; a test holds :data:`MODEL_PRICES` to that package. Each model carries its
provider's prompt-cache rule (:mod:`windowmem.prices.cache`).

>>> call = CallTokens(turn=1, input=2_000, cached=1_024, written=0, output=300)
>>> call_cost(call, price_of("gpt-5.4-mini"))
Decimal('0.0021588')
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal

from windowmem.errors import PolicyError
from windowmem.prices.cache import ANTHROPIC_CACHE, GEMINI_CACHE, NO_CACHE, OPENAI_CACHE, CacheRule

#: Where the prices below come from, and when they were last compared with it.
PRICES_SOURCE = (
    "genai-prices 0.2.5 (pydantic's table of list prices, which cites each provider's page)"
)
PRICES_CHECKED = "2026-12-06"

_MILLION = Decimal(1_000_000)


@dataclass(frozen=True)
class ModelPrice:
    """One model's list prices, in US dollars per million tokens."""

    provider: str
    model: str
    """The model's id in the provider's API."""
    name: str
    input: Decimal
    cached_input: Decimal
    output: Decimal
    cache_write: Decimal | None
    """The price of input written to the cache where the caller asks for it; None: writing is free."""
    cache: CacheRule
    source: str
    """The provider's price page."""
    context_window: int
    """The most tokens one call may hold, input and output, as :data:`PRICES_SOURCE` records it."""


#: Three current models, one per large provider, at the prices :data:`PRICES_SOURCE` records.
MODEL_PRICES: tuple[ModelPrice, ...] = (
    ModelPrice(
        "openai",
        "gpt-5.4-mini",
        "GPT-5.4 mini",
        Decimal("0.75"),
        Decimal("0.075"),
        Decimal("4.5"),
        None,
        OPENAI_CACHE,
        "https://developers.openai.com/api/docs/pricing",
        400_000,
    ),
    ModelPrice(
        "anthropic",
        "claude-sonnet-4-6",
        "Claude Sonnet 4.6",
        Decimal("3"),
        Decimal("0.3"),
        Decimal("15"),
        Decimal("3.75"),
        ANTHROPIC_CACHE,
        "https://www.anthropic.com/pricing#api",
        1_000_000,
    ),
    ModelPrice(
        "google",
        "gemini-2.5-flash",
        "Gemini 2.5 Flash",
        Decimal("0.3"),
        Decimal("0.03"),
        Decimal("2.5"),
        None,
        GEMINI_CACHE,
        "https://ai.google.dev/gemini-api/docs/pricing",
        1_048_576,
    ),
)


def price_of(model: str) -> ModelPrice:
    """The :class:`ModelPrice` of *model* (its API id, as in :data:`MODEL_PRICES`)."""
    for price in MODEL_PRICES:
        if price.model == model:
            return price
    known = ", ".join(p.model for p in MODEL_PRICES)
    raise PolicyError(
        f"no price recorded for model {model!r}: use one of {known}, "
        "or build a windowmem.prices.ModelPrice with your own model's list prices"
    )


@dataclass(frozen=True)
class CallTokens:
    """The tokens one call is billed for, by kind. *input* counts all of the input,
    the *cached* and *written* parts included."""

    turn: int
    input: int
    cached: int
    written: int
    output: int

    @property
    def uncached(self) -> int:
        """Input billed at the plain input price."""
        return self.input - self.cached - self.written


def call_cost(tokens: CallTokens, price: ModelPrice) -> Decimal:
    """The call's price in US dollars."""
    write_price = price.cache_write if price.cache_write is not None else price.input
    return (
        tokens.uncached * price.input
        + tokens.cached * price.cached_input
        + tokens.written * write_price
        + tokens.output * price.output
    ) / _MILLION


def without_cache(price: ModelPrice) -> ModelPrice:
    """*price* with no prompt cache: every input token at the plain input price.

    What a call costs on Anthropic when the caller marks nothing to cache, and the yardstick
    for a cache that writes more than it reads.

    >>> claude = without_cache(price_of("claude-sonnet-4-6"))
    >>> claude.name, claude.cache.cacheable(100_000), claude.cache_write
    ('Claude Sonnet 4.6, no cache', 0, None)
    """
    return replace(price, name=f"{price.name}, no cache", cache_write=None, cache=NO_CACHE)
