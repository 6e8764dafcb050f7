"""LlamaIndex ``ChatMemoryBuffer``: the newest messages within a token limit, never starting on a reply.

It stores every message and cuts when it loads (``get``). While the window is over
``token_limit`` and more than one message is left, it drops the oldest message, then
keeps dropping while the window would start on an assistant or tool message (a reply
with no question, a tool result with no call). The newest message always survives,
even alone over the limit, so the model, not the memory, reports an oversized input.
System messages get no protection.

LlamaIndex counts the tokens of the window's contents joined by single spaces. With
the default word counter that is the sum of each message's words. A subword tokenizer
can count the joins too: in Qwen2.5, ``"x"`` is 1 token but ``"x "`` is 2, so an empty
message (an assistant turn that only calls a tool) costs a token once joined. Set
``count_joined=True`` to count the joined text itself, exactly as LlamaIndex does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy, check_size
from windowmem.tokens import TokenCounter, count_words

#: Roles a LlamaIndex window may not start on while older messages could still be dropped.
_NOT_A_START = (Role.ASSISTANT, Role.TOOL)


@dataclass(frozen=True)
class LlamaIndexChatMemoryBuffer(WindowPolicy):
    """LlamaIndex ``ChatMemoryBuffer`` with ``token_limit`` = *size* (tokens of contents, default 3000).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> [m.content for m in LlamaIndexChatMemoryBuffer(3).window(chat)]
    ['u3', 'a3']
    """

    size: int = 3000
    counter: TokenCounter = count_words
    count_joined: bool = False

    name: ClassVar[str] = "llamaindex"
    source: ClassVar[str] = "llama_index/core/memory/chat_memory_buffer.py"
    superseded: ClassVar[str | None] = (
        'marked "Deprecated: Please use llama_index.core.memory.Memory" (llama-index-core '
        "0.14.25; the first release to say so was not looked up)"
    )
    use_instead: ClassVar[tuple[str, ...]] = ("llamaindex-memory",)
    product: ClassVar[str] = "LlamaIndex ChatMemoryBuffer"
    unit: ClassVar[Unit] = Unit.TOKENS
    default_size: ClassVar[int] = 3000
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 1 (LlamaIndex rejects 0)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        if not callable(self.counter):
            raise PolicyError(
                f"{self.name}: counter must be a function of one message, got {self.counter!r}"
            )

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        if self.count_joined:
            return tuple(stored[self._start_by_dropping(stored) :])
        return tuple(stored[self._start_from_the_end(stored) :])

    def _start_by_dropping(self, stored: Sequence[Message]) -> int:
        """Where the window starts, found as LlamaIndex finds it: drop from the front, recount."""
        count = len(stored)
        while count > 1 and self._joined_tokens(stored[len(stored) - count :]) > self.size:
            count -= 1
            while count > 1 and stored[-count].role in _NOT_A_START:
                count -= 1
        return len(stored) - count

    def _joined_tokens(self, window: Sequence[Message]) -> int:
        return self.counter(Message(Role.USER, " ".join(m.content for m in window)))

    def _start_from_the_end(self, stored: Sequence[Message]) -> int:
        """The same start, found in O(window) for a counter that adds up message by message.

        Dropping from the front only ever stops at index 0, at a message that is neither
        an assistant nor a tool message, or at the last message; and once the tokens from
        some start fit, they fit from every later one. So the window starts at the first
        such stop at or after the earliest start whose tokens fit.
        """
        last = len(stored) - 1
        if last < 0:
            return 0
        earliest, total = len(stored), 0
        while earliest > 0:
            total += self.counter(stored[earliest - 1])
            if total > self.size:
                break
            earliest -= 1
        if earliest == 0:
            return 0
        for index in range(earliest, last):
            if stored[index].role not in _NOT_A_START:
                return index
        return last
