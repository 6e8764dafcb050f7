"""LlamaIndex ``Memory``: a FIFO queue trimmed on write, flushed in whole turns to memory blocks.

``llama_index.core.memory.Memory`` (llama-index-core 0.14.25, ``llama_index/core/memory/
memory.py``) replaces ``ChatMemoryBuffer``, whose docstring now says "Deprecated: Please
use ``llama_index.core.memory.Memory``". It behaves differently:

* it cuts what it *stores*, on every ``put`` / ``put_messages`` (``_manage_queue``), not
  what it loads: ``get()`` returns the whole active queue;
* the cut starts only once the queue holds more than ``token_limit x
  chat_history_token_ratio`` tokens (default 30000 x 0.7 = 21000);
* it then moves the oldest messages, about ``token_flush_size`` tokens at a time, out of
  the queue (they are *archived*, and given to the memory blocks, if any), and goes on
  until the queue is back under the threshold;
* each flush ends on a turn boundary: the queue must start on a user message, and if
  that would leave no user message the newest whole turn is put back;
* the last message is never flushed alone.

``token_flush_size`` depends on how the memory was made: ``Memory.from_defaults(
token_limit=L)`` passes 3000, cut to ``int(L x 0.7)`` when 3000 > L; ``Memory(
token_limit=L)`` leaves it unset, and its validator makes it ``int(L x 0.1)``
(:func:`flush_size`). A LlamaIndex agent (``FunctionAgent``) writes the user message with
``aput`` and, at the end of the turn, the assistant's calls, the tool results and the
answer with one ``aput_messages``: in :class:`~windowmem.policies.base.Memory` terms,
``add(user_message)`` then ``add(*replies)``.

LlamaIndex counts each message's text blocks with its tokenizer (tiktoken by default,
which downloads its vocabulary) plus ``str(additional_kwargs)`` where that is not empty;
here *counter* counts a message (words by default), and tool-call links are not counted.
A ``FunctionAgent`` stores each tool result with ``additional_kwargs={"tool_call_id": id}``,
so there every result costs those tokens too: :func:`function_agent_counter` counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.messages import Message, Role
from windowmem.policies.base import Unit, WindowPolicy, check_size
from windowmem.tokens import TokenCounter, count_words

LLAMA_INDEX_VERSION = "0.14.25"
#: ``DEFAULT_TOKEN_LIMIT`` and ``DEFAULT_FLUSH_SIZE`` (``int(30000 * 0.1)``).
DEFAULT_TOKEN_LIMIT = 30_000
DEFAULT_FLUSH_SIZE = 3_000
DEFAULT_CHAT_HISTORY_RATIO = 0.7


def _words(text: str) -> int:
    return len(text.split())


def function_agent_counter(text_tokens: Callable[[str], int] = _words) -> TokenCounter:
    """How ``Memory`` counts what a ``FunctionAgent`` stored: the text, and for a tool result
    ``str({"tool_call_id": id})`` as well (``_estimate_token_count``), with *text_tokens*.

    >>> from windowmem.messages import tool
    >>> function_agent_counter()(tool("r1 r1", "call1"))  # 2 words + "{'tool_call_id':" "'call1'}"
    4
    """

    def count(message: Message) -> int:
        tokens = text_tokens(message.content)
        if message.role is Role.TOOL and message.tool_call_id is not None:
            tokens += text_tokens(str({"tool_call_id": message.tool_call_id}))
        return tokens

    return count


def flush_size(
    token_limit: int,
    token_flush_size: int | None = DEFAULT_FLUSH_SIZE,
    *,
    from_defaults: bool = True,
) -> int:
    """The ``token_flush_size`` a ``Memory`` ends up with (``from_defaults``, then the validator).

    >>> flush_size(30000), flush_size(100), flush_size(100, from_defaults=False, token_flush_size=None)
    (3000, 70, 10)
    """
    if from_defaults:
        if token_flush_size is None:
            token_flush_size = DEFAULT_FLUSH_SIZE
        if token_flush_size > token_limit:
            token_flush_size = int(token_limit * 0.7)
    if token_flush_size is None or token_flush_size < 1 or token_flush_size > token_limit:
        return int(token_limit * 0.1)
    return token_flush_size


def manage_queue(
    queue: Sequence[Message], counter: TokenCounter, threshold: float, flush: int
) -> tuple[tuple[Message, ...], tuple[Message, ...]]:
    """``Memory._manage_queue``: the queue kept and the messages archived, oldest first.

    *threshold* is ``token_limit x chat_history_token_ratio``; *flush* the flush size.

    >>> from windowmem.messages import user, assistant
    >>> queue = [user("u1 u1"), assistant("a1 a1"), user("u2 u2"), assistant("a2 a2")]
    >>> kept, archived = manage_queue(queue, count_words, 6, 1)
    >>> [m.content for m in kept], [m.content for m in archived]
    (['u2 u2', 'a2 a2'], ['u1 u1', 'a1 a1'])
    """
    if not queue:
        return (), ()
    total = sum(counter(m) for m in queue)
    if total <= threshold:
        return tuple(queue), ()
    newest_first = list(reversed(queue))
    archived: list[Message] = []
    while total - threshold > 0:
        if len(newest_first) <= 1:
            break
        flushed: list[Message] = []
        tokens = 0
        while tokens < flush and len(newest_first) > 1:
            message = newest_first.pop()
            flushed.append(message)
            tokens += counter(message)
        # The queue must start on a user message.
        while newest_first[-1].role is not Role.USER and len(newest_first) > 1:
            flushed.append(newest_first.pop())
        if len(newest_first) == 1 and newest_first[0].role is not Role.USER and flushed:
            # Keep the newest whole turn instead (from the last flushed user message).
            flushed.append(newest_first.pop(0))
            start = next(
                (i for i in range(len(flushed) - 1, -1, -1) if flushed[i].role is Role.USER), -1
            )
            if start >= 0:
                newest_first = flushed[start:][::-1]
                flushed = flushed[:start]
        archived.extend(flushed)
        total = sum(counter(m) for m in newest_first)
        if not flushed:
            break
    return tuple(reversed(newest_first)), tuple(archived)


@dataclass(frozen=True)
class LlamaIndexMemory(WindowPolicy):
    """LlamaIndex ``Memory.from_defaults(token_limit=size)``: the queue is cut on write past ``size x 0.7`` tokens.

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3"), assistant("a3")]
    >>> [m.content for m in LlamaIndexMemory(5).window(chat)]  # over 3.5 tokens: flush 3 at a time
    ['u3', 'a3']
    >>> len(LlamaIndexMemory().window(chat))  # 21000 tokens before anything is cut
    6
    """

    size: int = DEFAULT_TOKEN_LIMIT
    chat_history_token_ratio: float = DEFAULT_CHAT_HISTORY_RATIO
    token_flush_size: int | None = DEFAULT_FLUSH_SIZE
    from_defaults: bool = True
    counter: TokenCounter = count_words

    name: ClassVar[str] = "llamaindex-memory"
    source: ClassVar[str] = "llama_index/core/memory/memory.py"
    product: ClassVar[str] = (
        f"LlamaIndex Memory, oldest turns moved out on write ({LLAMA_INDEX_VERSION})"
    )
    unit: ClassVar[Unit] = Unit.TOKENS
    default_size: ClassVar[int | None] = DEFAULT_TOKEN_LIMIT
    trims_on_write: ClassVar[bool] = True
    includes_new_message: ClassVar[bool] = True
    accepted_sizes: ClassVar[str] = "a whole number of tokens >= 1 (LlamaIndex rejects 0)"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)
        ratio = self.chat_history_token_ratio
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or ratio <= 0:
            raise PolicyError(f"{self.name}: chat_history_token_ratio must be > 0, got {ratio!r}")
        if self.token_flush_size is not None:
            check_size(self.token_flush_size, policy=f"{self.name} token_flush_size")
        if not callable(self.counter):
            raise PolicyError(f"{self.name}: counter must be a function of one message")

    @property
    def threshold(self) -> float:
        """Tokens the queue may hold before a write flushes it: ``token_limit x ratio``."""
        return self.size * self.chat_history_token_ratio

    @property
    def flush(self) -> int:
        """The flush size this memory ends up with (:func:`flush_size`)."""
        return flush_size(self.size, self.token_flush_size, from_defaults=self.from_defaults)

    def flushed(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        """What one write of *added* archives (the messages memory blocks would receive)."""
        return manage_queue((*stored, *added), self.counter, self.threshold, self.flush)[1]

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored)

    def write(self, stored: Sequence[Message], added: Sequence[Message]) -> tuple[Message, ...]:
        return manage_queue((*stored, *added), self.counter, self.threshold, self.flush)[0]

    def load_with(self, stored: Sequence[Message], new: Sequence[Message]) -> tuple[Message, ...]:
        """``aput(user_message)`` then ``aget()``: the new message is written, then all is loaded."""
        return self.write(stored, new) if new else tuple(stored)
