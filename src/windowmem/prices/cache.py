"""The providers' prompt caches: which prefix of a call each one serves, and what it writes.

A prompt cache only ever reuses an exact **prefix**: the longest run of entries, from the
first, that an earlier call sent identically. Each provider adds a minimum length (a prefix
shorter than it is never cached), and some a step; Anthropic caches only what the caller
marks and charges for writing it. :class:`CacheRule` holds one provider's rule, with the page
that documents it; :func:`prefix_cache` applies a rule to a run of calls.

>>> OPENAI_CACHE.cacheable(1_300), GEMINI_CACHE.cacheable(1_300)
(1280, 0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from windowmem.messages import Message, Role
from windowmem.tokens import TokenCounter, count_messages

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
    page_revision: str | None = None
    """The date of the revision of *source* the rule follows, where the page's rule has changed."""

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
#: Gemini 2.5 Flash caches every prompt of 2,048 tokens or more by itself ("implicit caching"):
#: the minimum Google's caching page gives for 2.5 Flash (and 2.5 Pro) as last updated on
#: 2026-10-13. Its earlier versions, and Google's announcement of implicit caching
#: (2025-05-08), gave 1,024.
GEMINI_CACHE = CacheRule(
    2048, 1, False, "https://ai.google.dev/gemini-api/docs/caching", page_revision="2026-10-13"
)


#: No prompt cache at all: every input token at the input price (what a caller who marks
#: nothing pays on Anthropic, or a provider without a cache).
NO_CACHE = CacheRule(2**62, 1, False, "no prompt cache: every input token at the input price")


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
