"""The course's own values a hidden test may pass to a student's function, as plain data.

A conversation, one of its interactions or one message crosses the channel as the file
format's dicts, and the kernel rebuilds the same windowmem object from them (see
:func:`autograder.judge.in_kernel._read_extra`). Nothing else of the judge's crosses.
A channel sends each conversation whole once and by number after (:class:`SentValues`).
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


class SentValues:
    """The extra writer of one channel: each conversation sent whole once, then by its number.

    A hidden test passes the same conversation to the student's function in case after
    case (lesson 3's ``test_prompt_tokens_long`` sends its tool chat 48 times); sent whole
    every time, each call cost the judge its encoding and the kernel its parsing, work a
    test run in the kernel never does. The kernel keeps what was sent whole under its
    number (:data:`autograder.judge.in_kernel.SENT`); a number is plain data, and a
    kernel that forgets one answers nothing for the call, which fails as any bad answer.

    >>> sent = SentValues()
    >>> chat = Conversation.of([{"role": "user", "content": "Hi"}])
    >>> sent.write(chat)["sent_as"], sent.write(chat)
    (0, {'kind': 'sent', 'sent_as': 0})
    """

    def __init__(self) -> None:
        self._numbers: dict[int, int] = {}
        self._kept: list[Conversation] = []  # alive while numbered, so an id names one value

    def write(self, value: Any) -> dict | None:
        """*value* tagged as :func:`write_extra` does, or by its number once it has been sent."""
        if type(value) is not Conversation:
            return write_extra(value)
        number = self._numbers.get(id(value))
        if number is not None:
            return {"kind": "sent", "sent_as": number}
        tagged = write_extra(value)
        self._numbers[id(value)] = len(self._kept)
        self._kept.append(value)
        return {**tagged, "sent_as": self._numbers[id(value)]}  # type: ignore[dict-item]
