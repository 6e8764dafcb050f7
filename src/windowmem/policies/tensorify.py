"""Tensorify's Window Memory node: the last ``windowSize`` messages (documented only).

What is documented: ``windowSize`` counts messages, default 20; buffers are keyed by a
``sessionKey`` template (without one, every user shares ``agent_memory:{workflow_id}``,
:func:`tensorify_session_key`); ``persistent`` (default true) keeps them in the
workflow's SQLite state across restarts.

What is not known, because no source is public: whether the window is cut when
saving or when loading, whether system messages are stored or protected, whether a
tool result can be cut from its call, and what a ``windowSize`` of 0 does. This model
takes the plainest reading: store everything, load the last ``windowSize`` messages
whatever their roles, and accept only sizes of at least 1. ("Older messages are
dropped" could mean either cut; for a last-N window the two differ in what is stored,
never in what the agent receives.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from windowmem.errors import SessionKeyError
from windowmem.key_templates import render_key
from windowmem.messages import Message
from windowmem.policies.base import Unit, WindowPolicy, check_size

#: Tensorify's Window Memory key when no session key is set: one buffer per workflow.
TENSORIFY_FALLBACK = "agent_memory:{workflow_id}"


@dataclass(frozen=True)
class TensorifyWindowMemory(WindowPolicy):
    """Tensorify Window Memory with ``windowSize`` = *size*: the last *size* messages (default 20).

    >>> from windowmem.messages import user, assistant
    >>> chat = [user("u1"), assistant("a1"), user("u2")]
    >>> [m.content for m in TensorifyWindowMemory(2).window(chat)]
    ['a1', 'u2']
    """

    size: int = 20
    name: ClassVar[str] = "tensorify"
    source: ClassVar[str] = "https://tensorify.io/docs/plugins/memory-window (documented only)"
    product: ClassVar[str] = "Tensorify Window Memory"
    unit: ClassVar[Unit] = Unit.MESSAGES
    default_size: ClassVar[int] = 20
    accepted_sizes: ClassVar[str] = "a whole number of messages >= 1"

    def __post_init__(self) -> None:
        check_size(self.size, policy=self.name, allow_zero=False)

    def tail_needed(self) -> int | None:
        return self.size

    def load(self, stored: Sequence[Message]) -> tuple[Message, ...]:
        return tuple(stored[-self.size :])


def tensorify_session_key(
    template: str | None, request: Mapping[str, Any], workflow_id: str
) -> str:
    """The buffer key Tensorify's Window Memory uses: the rendered template, or the shared fallback.

    >>> tensorify_session_key("", {}, "wf-1")
    'agent_memory:wf-1'
    """
    if template is None or template.strip() == "":
        if not isinstance(workflow_id, str) or not workflow_id:
            raise SessionKeyError(
                "no session key is set and the workflow id is empty: pass the workflow's id"
            )
        return TENSORIFY_FALLBACK.format(workflow_id=workflow_id)
    return render_key(template, request)
