"""n8n's Simple Memory (node ``memoryBufferWindow``): a window counted in interactions.

It wraps LangChain JS ``BufferWindowMemory`` with ``k = contextWindowLength``: every
message is stored, and a load returns the last ``2k`` messages, whatever their roles.
``k = 0`` loads everything (JavaScript's ``slice(-0)`` is the whole array).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from windowmem.messages import Message
from windowmem.policies.base import Unit, WindowPolicy, check_size


@dataclass(frozen=True)
class N8nSimpleMemory(WindowPolicy):
    """n8n Simple Memory with Context Window Length *size* (interactions, default 5).

    >>> from windowmem.messages import user, assistant
    >>> chat = [m for t in range(1, 8) for m in (user(f"u{t}"), assistant(f"a{t}"))]
    >>> [m.content for m in N8nSimpleMemory(5).window(chat[:12])][:2]
    ['u2', 'a2']
    """

    size: int = 5
    name: ClassVar[str] = "n8n"
    product: ClassVar[str] = "n8n Simple Memory"
    unit: ClassVar[Unit] = Unit.INTERACTIONS
    default_size: ClassVar[int] = 5

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name)

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        if self.size == 0:
            return tuple(stored)
        return tuple(stored[-2 * self.size :])
