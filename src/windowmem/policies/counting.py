"""Token counters that need no tokenizer: one per word, or one per message.

Any ``Callable[[Message], int]`` is a :data:`~windowmem.policies.base.TokenCounter`;
the real Qwen tokenizer counter in :mod:`windowmem.tokens` plugs in the same way.
Counting words keeps worked examples checkable by hand ("1 word = 1 token"), and
counting messages reproduces ``trim_messages(token_counter=len)``.

>>> from windowmem.messages import user
>>> count_words(user("Where is my order?")), count_one(user("Where is my order?"))
(4, 1)
"""

from __future__ import annotations

from windowmem.messages import Message


def count_words(message: Message) -> int:
    """The number of whitespace-separated words in *message*'s content."""
    return len(message.content.split())


def count_one(message: Message) -> int:
    """One token per message, whatever it says: LangChain's ``token_counter=len``."""
    return 1
