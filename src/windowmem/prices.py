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

>>> from windowmem.messages import user, assistant, system
>>> price = price_of("gpt-5.4-mini")
>>> call = CallTokens(turn=1, input=2_000, cached=1_024, written=0, output=300)
>>> call_cost(call, price)
Decimal('0.0021588')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TypeVar

from windowmem.conversation import Conversation, as_conversation
from windowmem.errors import PolicyError
from windowmem.messages import Message, Role, system
from windowmem.policies.base import WindowPolicy
from windowmem.replay import iter_turn_views
from windowmem.tokens import TokenCounter, count_messages

#: Where the prices below come from, and when they were last compared with it.
PRICES_SOURCE = (
    "genai-prices 0.2.5 (pydantic's table of list prices, which cites each provider's page)"
)
PRICES_CHECKED = "2026-12-06"

_MILLION = Decimal(1_000_000)

#: An entry of a call: a message, or a budget agent's context item.
T = TypeVar("T")


@dataclass(frozen=True)
class CacheRule:
    """When a provider reads a prompt's prefix from its cache, and whether the caller pays to write it."""

    min_tokens: int
    """A prefix shorter than this is never cached."""
    step_tokens: int
    """A cached prefix is *min_tokens* plus a whole number of steps (1: any length)."""
    explicit: bool
    """True where the caller marks what to cache (a breakpoint) and pays the write price for it;
    False where the provider caches every prompt by itself, free."""
    source: str
    """The provider's page that documents the rule."""

    def cacheable(self, prefix_tokens: int) -> int:
        """The tokens of a *prefix_tokens*-long shared prefix that the cache can serve.

        >>> OPENAI_CACHE.cacheable(1_000), OPENAI_CACHE.cacheable(1_300)
        (0, 1280)
        """
        if prefix_tokens < self.min_tokens:
            return 0
        return (
            self.min_tokens
            + (prefix_tokens - self.min_tokens) // self.step_tokens * self.step_tokens
        )


#: OpenAI caches every prompt of 1,024 tokens or more by itself, in steps of 128 tokens.
OPENAI_CACHE = CacheRule(1024, 128, False, "https://platform.openai.com/docs/guides/prompt-caching")
#: Anthropic caches what a ``cache_control`` breakpoint marks, from 1,024 tokens on Sonnet models;
#: writing costs 1.25x the input price. Here the breakpoints are the end of the system message and
#: the end of each call's last message, the usual set-up for a chat.
ANTHROPIC_CACHE = CacheRule(
    1024, 1, True, "https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching"
)
#: Gemini 2.5 Flash caches every prompt of 1,024 tokens or more by itself ("implicit caching").
GEMINI_CACHE = CacheRule(1024, 1, False, "https://ai.google.dev/gemini-api/docs/caching")


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


def shared_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    """How many entries, from the first, *a* and *b* have in common (messages, or any values).

    >>> from windowmem.messages import user
    >>> shared_prefix([user("a"), user("b")], [user("a"), user("c")])
    1
    """
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _after_system_message(call: Sequence[Message]) -> int:
    """Where Anthropic's first breakpoint sits: after the system message, if the call has one."""
    return 1 if call and call[0].role is Role.SYSTEM else 0


def prefix_cache(
    calls: Sequence[Sequence[T]],
    rule: CacheRule,
    size: Callable[[T], int],
    fixed_prefix: Callable[[Sequence[T]], int],
) -> list[tuple[int, int]]:
    """(read from the cache, written to it) for each call in *calls*, in tokens.

    A call is a sequence of entries (messages, or a budget agent's context items), each of
    *size* tokens; two entries match when they are equal. A provider that caches by itself can
    serve the longest prefix any earlier call sent; one with breakpoints serves only a prefix
    ending at an earlier breakpoint (after the first ``fixed_prefix(call)`` entries, the part
    sent unchanged on every call, or the end of an earlier call), and writes the rest of the
    call up to its own end.

    >>> prefix_cache([["s", "a"], ["s", "a", "b"]], CacheRule(2, 1, False, ""), len, lambda c: 1)
    [(0, 0), (2, 0)]
    """
    out: list[tuple[int, int]] = []
    for i, call in enumerate(calls):
        sizes = [size(entry) for entry in call]
        total = sum(sizes)
        prefix_tokens = [0]
        for entry_size in sizes:
            prefix_tokens.append(prefix_tokens[-1] + entry_size)
        best = 0
        for earlier in calls[:i]:
            shared = shared_prefix(call, earlier)
            if rule.explicit:
                breakpoints = [len(earlier), fixed_prefix(earlier)]
                shared = max((b for b in breakpoints if 0 < b <= shared), default=0)
            best = max(best, rule.cacheable(prefix_tokens[shared]))
        written = 0
        if rule.explicit and total >= rule.min_tokens:
            written = total - best
        out.append((best, written))
    return out


def cache_tokens(
    calls: Sequence[Sequence[Message]], rule: CacheRule, counter: TokenCounter = count_messages
) -> list[tuple[int, int]]:
    """(read from the cache, written to it) for each call in *calls*, in tokens.

    A provider that caches by itself can serve the longest prefix any earlier call sent; one
    with breakpoints serves only a prefix ending at an earlier breakpoint (the end of the system
    message, or the end of an earlier call), and writes the rest of the call up to its own end.
    """
    return prefix_cache(calls, rule, counter, _after_system_message)


@dataclass(frozen=True)
class Bill:
    """A conversation's calls and what they cost together."""

    model: ModelPrice
    calls: tuple[CallTokens, ...]

    @property
    def dollars(self) -> Decimal:
        return sum((call_cost(c, self.model) for c in self.calls), Decimal(0))

    def total(self, kind: str) -> int:
        """Total tokens of one *kind*: "input", "cached", "written", "uncached" or "output"."""
        if kind not in ("input", "cached", "written", "uncached", "output"):
            raise ValueError(
                f"unknown kind of token {kind!r}: use input, cached, written, uncached or output"
            )
        return sum(getattr(c, kind) for c in self.calls)


def conversation_bill(
    conversation: Conversation | Sequence[Message],
    policy: WindowPolicy,
    model: ModelPrice | str,
    counter: TokenCounter = count_messages,
    *,
    stamp: Callable[[int], str] | None = None,
) -> Bill:
    """What every call of *conversation* under *policy* costs on *model*, one call per turn.

    A call's output is its turn's assistant messages; the extra calls of a turn's tool rounds
    are not counted, so for a chat with tools the bill is a lower bound.

    *stamp*, when given, is the text put at the start of the system message of turn *t*'s
    call, ``stamp(t)``: what an expression such as n8n's ``{{ $now }}`` at the top of the
    System Message does, filled anew on every run. Calls whose stamps differ share no prefix.

    >>> from windowmem.messages import system, user, assistant
    >>> from windowmem.policies.n8n import N8nSimpleMemory
    >>> from windowmem.tokens import count_words
    >>> chat = [system("rule " * 1100)] + [m for t in range(4) for m in (user("u"), assistant("a"))]
    >>> plain = conversation_bill(chat, N8nSimpleMemory(0), "gpt-5.4-mini", count_words)
    >>> stamped = conversation_bill(chat, N8nSimpleMemory(0), "gpt-5.4-mini", count_words,
    ...                             stamp=lambda turn: f"Now: 10:0{turn}")
    >>> plain.total("cached"), stamped.total("cached")
    (3072, 0)
    """
    price = price_of(model) if isinstance(model, str) else model
    chat = as_conversation(conversation)
    views = list(iter_turn_views(chat, policy, counter))
    sent = [_stamped(v.sent, stamp(v.turn)) if stamp else v.sent for v in views]
    cached = cache_tokens(sent, price.cache, counter)
    calls = []
    for view, call, interaction, (read, written) in zip(
        views, sent, chat.interactions, cached, strict=True
    ):
        reply = [m for m in interaction.messages if m.role is Role.ASSISTANT]
        tokens = sum(counter(m) for m in call) if stamp else view.input_tokens
        calls.append(CallTokens(view.turn, tokens, read, written, sum(counter(m) for m in reply)))
    return Bill(price, tuple(calls))


def _stamped(call: Sequence[Message], text: str) -> tuple[Message, ...]:
    # The stamp opens the system message; a call without one gets a system message of its own.
    if not isinstance(text, str) or not text.strip():
        raise PolicyError(f"a stamp must be a non-empty string, got {text!r}")
    if call and call[0].role is Role.SYSTEM:
        return (system(text + "\n" + call[0].content), *call[1:])
    return (system(text), *call)


def behind_system_message(
    conversation: Conversation | Sequence[Message], text: str
) -> Conversation:
    """*conversation* with *text* as its system message, in place of any it had.

    A builder who pastes the shop's policies into the agent's System Message makes every call
    longer by the same prefix: the part a prompt cache can serve to a sliding window too.

    >>> from windowmem.messages import system, user, assistant
    >>> chat = behind_system_message([system("Be brief."), user("hi"), assistant("hello")], "Rules")
    >>> [(m.role.value, m.content) for m in chat.messages]
    [('system', 'Rules'), ('user', 'hi'), ('assistant', 'hello')]
    """
    if not isinstance(text, str) or not text.strip():
        raise PolicyError("give the system message's text: a non-empty string")
    chat = as_conversation(conversation)
    rest = [m for m in chat.messages if m.role is not Role.SYSTEM]
    return Conversation.of([system(text), *rest], chat.title)
