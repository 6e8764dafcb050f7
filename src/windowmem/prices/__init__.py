"""What a conversation's calls cost in money: list prices, the prompt cache, and output.

A call is billed for three kinds of tokens, each at its own price per million:

* input read from the provider's **prompt cache**, at the cached-input price (a tenth of the
  input price for the models below);
* the rest of the input, at the input price (where the caller asks the provider to cache a
  prefix, as with Anthropic's ``cache_control``, at the dearer cache-write price);
* the reply, at the output price, the dearest of the three.

A prompt cache only ever reuses an exact **prefix**: the longest run of messages, from the
first, that an earlier call sent identically. An unbounded history keeps every earlier call
as the start of the next one, so nearly all of each call is read from the cache. A sliding
window drops the oldest turn from the front once it is full, so every call after that starts
differently right after the system message, and only the system message (if it is long enough
to be cached at all) is read from the cache. That is why a window that cuts the input in tokens
can cut the bill far less, or not at all.

The model here counts in whole messages, assumes each call comes within the cache's lifetime
of the last one (minutes, not hours), and covers the documented rules named in each
:class:`CacheRule`. Prices are the providers' list prices as :data:`PRICES_SOURCE` records
them; a test holds :data:`MODEL_PRICES` to that package.

It is a package of three modules, each importable from here: :mod:`~windowmem.prices.cache`
(the providers' prompt-cache rules), :mod:`~windowmem.prices.models` (the list prices and one
call's cost) and :mod:`~windowmem.prices.bills` (a chat's calls priced).

>>> price = price_of("gpt-5.4-mini")
>>> call = CallTokens(turn=1, input=2_000, cached=1_024, written=0, output=300)
>>> call_cost(call, price)
Decimal('0.0021588')
"""

from windowmem.prices.bills import Bill, behind_system_message, conversation_bill
from windowmem.prices.cache import (
    ANTHROPIC_CACHE,
    GEMINI_CACHE,
    NO_CACHE,
    OPENAI_CACHE,
    CacheRule,
    cache_tokens,
    prefix_cache,
    shared_prefix,
)
from windowmem.prices.models import (
    MODEL_PRICES,
    PRICES_CHECKED,
    PRICES_SOURCE,
    CallTokens,
    ModelPrice,
    call_cost,
    price_of,
    without_cache,
)

__all__ = [
    "ANTHROPIC_CACHE",
    "GEMINI_CACHE",
    "MODEL_PRICES",
    "NO_CACHE",
    "OPENAI_CACHE",
    "PRICES_CHECKED",
    "PRICES_SOURCE",
    "Bill",
    "CacheRule",
    "CallTokens",
    "ModelPrice",
    "behind_system_message",
    "cache_tokens",
    "call_cost",
    "conversation_bill",
    "prefix_cache",
    "price_of",
    "shared_prefix",
    "without_cache",
]
