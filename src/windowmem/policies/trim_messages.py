"""LangChain's ``trim_messages(strategy="last")``: the longest run from the end that fits a token budget.

A pure function rather than a memory: it stores nothing and is applied to the whole
history before each model call. Its rules, read from ``langchain_core.messages.utils``:

1. ``end_on`` first drops messages from the end until one of those types is last
   (the system message included, if nothing matches).
2. ``include_system`` protects ``messages[0]`` only, and only when it is a system
   message; its tokens leave the budget first (the remainder is clamped at 0), and it
   is kept even when it alone is over budget.
3. Whole messages are taken from the end while the running total stays within the
   budget; the first that does not fit stops the run (messages are never split here).
4. ``start_on`` then drops messages from the front of that run until one of those
   types comes first, possibly all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import ConversationFormatError, PolicyError
from windowmem.messages import Message, Role, parse_role
from windowmem.policies.base import Unit, WindowPolicy, check_size
from windowmem.tokens import TokenCounter, count_words

#: LangChain's message type names, for error messages and for users who know them.
LANGCHAIN_TYPE = {
    Role.SYSTEM: "system",
    Role.USER: "human",
    Role.ASSISTANT: "ai",
    Role.TOOL: "tool",
}


def role_set(value: str | Role | Iterable[str | Role] | None, *, option: str) -> frozenset[Role]:
    """The roles that *value* names (``"human"``, ``"user"``, ``Role.TOOL``, or several), or a PolicyError.

    >>> sorted(r.value for r in role_set(["human", "tool"], option="start_on"))
    ['tool', 'user']
    """
    if value is None:
        return frozenset()
    items = [value] if isinstance(value, (str, Role)) else list(value)
    try:
        return frozenset(parse_role(item) for item in items)
    except ConversationFormatError as error:
        raise PolicyError(f"trim-messages: {option} {error}") from None


@dataclass(frozen=True)
class TrimMessages(WindowPolicy):
    """``trim_messages(strategy="last", max_tokens=size, ...)``: keep the newest messages that fit *size* tokens.

    >>> from windowmem.messages import system, user, assistant
    >>> from windowmem.tokens import count_messages
    >>> chat = [system("s"), user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> policy = TrimMessages(4, counter=count_messages, include_system=True, start_on="human")
    >>> [m.content for m in policy.window(chat)]
    ['s', 'u3', 'a3']
    """

    size: int = 1000
    counter: TokenCounter = count_words
    include_system: bool = False
    start_on: str | Role | tuple[str | Role, ...] | None = None
    end_on: str | Role | tuple[str | Role, ...] | None = None

    name: ClassVar[str] = "trim-messages"
    source: ClassVar[str] = "langchain_core/messages/utils.py (trim_messages)"
    product: ClassVar[str] = "LangChain trim_messages (strategy=last)"
    unit: ClassVar[Unit] = Unit.TOKENS
    #: ``max_tokens`` has no default in LangChain; 1000 is this course's choice.
    default_size: ClassVar[int] = 1000
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 0"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)
        if not callable(self.counter):
            raise PolicyError(
                f"{self.name}: counter must be a function of one message, got {self.counter!r}"
            )
        # Validate the role names now, so a typo fails when the policy is made.
        role_set(self.start_on, option="start_on")
        role_set(self.end_on, option="end_on")

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        # Index arithmetic instead of copies: a load costs O(window), not O(history).
        end = len(stored)
        end_roles = role_set(self.end_on, option="end_on")
        if end_roles:
            while end > 0 and stored[end - 1].role not in end_roles:
                end -= 1

        protected: Message | None = None
        begin, budget = 0, self.size
        if self.include_system and end > 0 and stored[0].role is Role.SYSTEM:
            protected, begin = stored[0], 1
            budget = max(0, self.size - self.counter(protected))

        start = end
        total = 0
        while start > begin:
            total += self.counter(stored[start - 1])
            if total > budget:
                break
            start -= 1

        start_roles = role_set(self.start_on, option="start_on")
        if start_roles:
            while start < end and stored[start].role not in start_roles:
                start += 1
        kept = tuple(stored[start:end])
        return (protected, *kept) if protected is not None else kept
