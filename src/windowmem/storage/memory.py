"""The volatile repository: a dict in this process, like Spring AI's in-memory default.

Fast and simple, and gone when the process ends; it also grows without bound across
conversations, since nothing ever expires. One lock makes it safe to share between
threads.

>>> from windowmem.messages import user, assistant
>>> repo = InMemoryRepository()
>>> repo.append("c1", [user("Hi"), assistant("Hello!")])
>>> [m.content for m in repo.load_tail("c1", 1)]
['Hello!']
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from windowmem.messages import Message
from windowmem.storage.base import (
    Change,
    check_conversation_id,
    check_messages,
    check_tail_size,
    checked_change,
)


class InMemoryRepository:
    """Conversations in a dict of lists, guarded by one lock."""

    def __init__(self) -> None:
        self._conversations: dict[str, list[Message]] = {}
        self._lock = threading.Lock()

    def find_conversation_ids(self) -> list[str]:
        with self._lock:
            return sorted(self._conversations)

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        with self._lock:
            return list(self._conversations.get(conversation_id, ()))

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        with self._lock:
            if items:
                self._conversations[conversation_id] = items
            else:
                self._conversations.pop(conversation_id, None)

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        conversation_id = check_conversation_id(conversation_id)
        with self._lock:
            self._conversations.pop(conversation_id, None)

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        if not items:
            return
        with self._lock:
            self._conversations.setdefault(conversation_id, []).extend(items)

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        n = check_tail_size(n)
        if n == 0:
            return []
        with self._lock:
            return list(self._conversations.get(conversation_id, ())[-n:])

    def update(self, conversation_id: str, change: Change) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        with self._lock:
            new = checked_change(change, self._conversations.get(conversation_id, []))
            if new:
                self._conversations[conversation_id] = new
            else:
                self._conversations.pop(conversation_id, None)
            return list(new)

    def __repr__(self) -> str:
        return f"InMemoryRepository({len(self._conversations)} conversations)"
