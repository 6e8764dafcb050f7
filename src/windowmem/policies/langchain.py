"""LangChain's ``BufferWindowMemory``, in JavaScript and in Python: the last ``2k`` messages.

Both store every message and cut when they load, counting messages, never roles:
``k`` is meant as "interactions" but a tool exchange makes a turn longer than two.
The two differ only at the edges. JavaScript loads ``messages.slice(-k * 2)``, so
``k = 0`` loads everything (``slice(-0)`` is ``slice(0)``), a negative ``k`` drops
messages from the *start*, and a fractional ``k`` is truncated after doubling.
Python loads ``messages[-2k:] if k > 0 else []``: zero or a negative ``k`` loads nothing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from windowmem.errors import PolicyError
from windowmem.javascript import js_slice_start
from windowmem.messages import Message
from windowmem.policies.base import Unit, WindowPolicy, check_size


@dataclass(frozen=True)
class LangChainJsBufferWindow(WindowPolicy):
    """LangChain JS ``BufferWindowMemory``: load ``messages.slice(-k * 2)`` (k may be 0, negative or fractional).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
    >>> [m.content for m in LangChainJsBufferWindow(1).window(chat)]
    ['a2', 'u3']
    >>> [m.content for m in LangChainJsBufferWindow(1.5).window(chat)]
    ['u2', 'a2', 'u3']
    >>> [m.content for m in LangChainJsBufferWindow(-1).window(chat)]
    ['u2', 'a2', 'u3']
    """

    size: float = 5  # type: ignore[assignment]  # a JavaScript number: k = 1.5 is legal there
    name: ClassVar[str] = "langchain-js"
    source: ClassVar[str] = "memory/buffer_window_memory.js"
    product: ClassVar[str] = "LangChain JS BufferWindowMemory"
    unit: ClassVar[Unit] = Unit.INTERACTIONS
    default_size: ClassVar[int] = 5
    accepted_sizes: ClassVar[str] = (
        "any finite number: 0 loads everything, a negative k drops 2|k| messages from the start, "
        "a fraction is truncated after doubling (1.5 -> last 3)"
    )

    def __post_init__(self) -> None:
        size = self.size
        if isinstance(size, bool) or not isinstance(size, (int, float)) or not math.isfinite(size):
            raise PolicyError(f"{self.name}: k must be a finite number, got {size!r}")

    def tail_needed(self) -> int | None:
        # slice(-2k) keeps the last trunc(2k) for a positive whole count; 0 keeps
        # everything and a positive start (k < 0) drops from the front: both need all.
        keep = math.trunc(self.size * 2)
        return keep if keep > 0 else None

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored[js_slice_start(len(stored), -self.size * 2) :])


@dataclass(frozen=True)
class LangChainPyBufferWindow(WindowPolicy):
    """LangChain Python ``ConversationBufferWindowMemory``: load ``messages[-2k:] if k > 0 else []``.

    >>> from windowmem.messages import user, assistant
    >>> chat = [m for t in range(1, 6) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> [m.content for m in LangChainPyBufferWindow(3).window(chat)][:2]
    ['u3', 'a3']
    >>> LangChainPyBufferWindow(0).window(chat)
    ()
    """

    size: int = 5
    name: ClassVar[str] = "langchain-py"
    source: ClassVar[str] = "langchain_classic/memory/buffer_window.py"
    superseded: ClassVar[str | None] = (
        "deprecated since langchain 0.3.1, removal in 2.0.0 (langchain-classic 1.0.8: "
        "alternative langchain.agents.create_agent)"
    )
    use_instead: ClassVar[tuple[str, ...]] = (
        "langchain-trim-input",
        "langchain-trim-state",
        "langchain-summarization",
    )
    product: ClassVar[str] = "LangChain Python ConversationBufferWindowMemory"
    unit: ClassVar[Unit] = Unit.INTERACTIONS
    default_size: ClassVar[int] = 5
    accepted_sizes: ClassVar[str] = "any whole number: k <= 0 loads nothing"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_negative=True)

    def tail_needed(self) -> int | None:
        return 2 * self.size if self.size > 0 else 0

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        if self.size <= 0:
            return ()
        return tuple(stored[-2 * self.size :])
