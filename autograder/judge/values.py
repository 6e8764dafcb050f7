"""The course's own values a hidden test may pass to a student's function, as plain data.

A conversation, one of its interactions or one message crosses the channel as the file
format's dicts, and the kernel rebuilds the same windowmem object from them (see
:func:`autograder.judge.in_kernel._read_extra`). Nothing else of the judge's crosses.
"""

from __future__ import annotations

from typing import Any

from windowmem.conversation import Conversation
from windowmem.messages import Interaction, Message


def write_extra(value: Any) -> dict | None:
    """*value* as a tagged dict when it is one of the course's values, else None.

    >>> write_extra(Conversation.of([{"role": "user", "content": "Hi"}]))["kind"]
    'conversation'
    >>> write_extra(object()) is None
    True
    """
    if type(value) is Conversation:
        return {"kind": "conversation", "data": value.as_dict()}
    if type(value) is Interaction:
        return {
            "kind": "interaction",
            "number": value.number,
            "messages": [m.as_dict() for m in value.messages],
        }
    if type(value) is Message:
        return {"kind": "message", "messages": [value.as_dict()]}
    return None
