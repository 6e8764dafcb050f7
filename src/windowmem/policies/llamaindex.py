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

from dataclasses import dataclass
from itertools import accumulate
from typing import ClassVar, Sequence

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import TokenCounter, Unit, WindowPolicy, check_size
from windowmem.policies.counting import count_words

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
    product: ClassVar[str] = "LlamaIndex ChatMemoryBuffer"
    unit: ClassVar[Unit] = Unit.TOKENS
    default_size: ClassVar[int] = 3000
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 1 (LlamaIndex rejects 0)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        if not callable(self.counter):
            raise PolicyError(f"{self.name}: counter must be a function of one message, got {self.counter!r}")

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        messages = tuple(stored)
        tokens_from = self._tokens_from(messages)
        count = len(messages)
        while count > 1 and tokens_from(len(messages) - count) > self.size:
            count -= 1
            while count > 1 and messages[-count].role in _NOT_A_START:
                count -= 1
        return messages[len(messages) - count :]

    def _tokens_from(self, messages: tuple[Message, ...]):
        """A function: start index -> tokens of ``messages[start:]``, as LlamaIndex counts them."""
        if self.count_joined:
            def joined(start: int) -> int:
                text = " ".join(m.content for m in messages[start:])
                return self.counter(Message(Role.USER, text))
            return joined
        # Suffix sums make each step O(1); LlamaIndex re-tokenizes the window each time.
        suffix = list(accumulate((self.counter(m) for m in reversed(messages)), initial=0))[::-1]
        return suffix.__getitem__
