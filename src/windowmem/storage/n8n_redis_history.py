"""n8n's Redis Chat Memory: one Redis list under the bare session id, newest message first.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1 (``MemoryRedisChat``) and the store it uses,
``@langchain/redis`` 1.0.1 ``RedisChatMessageHistory``:

* the key is the session id the node hands over, with no prefix. With *Session ID* on
  "Connected Chat Trigger Node" (the default), n8n 2.41.1 has already scoped that id to
  the node, ``<sessionId>__<sanitised node name>``, from typeVersion 1.6 (``utils/helpers.js``);
  with "Define below", or before 1.6, it is the bare id. Pass the id n8n would use;
* each message is one ``LPUSH`` of ``{"type": ..., "data": {...}}`` as JSON, so the list
  holds the newest message first, and a load is ``LRANGE 0 -1`` reversed;
* with *Session Time To Live* above 0 (``sessionTTL``, seconds, default 0 = never), each
  push is followed by ``EXPIRE key sessionTTL``: the clock restarts at every **write**,
  and a read never moves it.

>>> from windowmem.messages import user, assistant
>>> from windowmem.policies.n8n import ManualClock
>>> from windowmem.storage.list_stores import SqliteLists
>>> lists = SqliteLists(":memory:", ManualClock())
>>> history = N8nRedisHistory(lists, "abc", session_ttl=3600)
>>> history.add_messages([user("hi"), assistant("hello")])
>>> [m.content for m in history.get_messages()], lists.ttl("abc")
(['hi', 'hello'], 3600)
"""

from __future__ import annotations

from collections.abc import Sequence

from windowmem.messages import Message
from windowmem.storage.base import StorageError, check_conversation_id, check_messages
from windowmem.storage.langchain_json import from_nested, nested, to_text
from windowmem.storage.list_stores import ListStore


class N8nRedisHistory:
    """One session's list in *lists* (a Redis server or its SQLite stand-in)."""

    def __init__(self, lists: ListStore, session_id: str, *, session_ttl: int = 0) -> None:
        if isinstance(session_ttl, bool) or not isinstance(session_ttl, int) or session_ttl < 0:
            raise StorageError(
                f"sessionTTL is a whole number of seconds >= 0 (0 = never), got {session_ttl!r}"
            )
        self.lists = lists
        self.session_id = check_conversation_id(session_id)
        self.session_ttl = session_ttl

    @property
    def key(self) -> str:
        """The Redis key: the session id, as it is."""
        return self.session_id

    def add_message(self, message: Message) -> None:
        """``LPUSH`` the message, then ``EXPIRE`` if a TTL is set."""
        check_messages(message)
        self.lists.lpush(self.key, to_text(nested(message)))
        if self.session_ttl:
            self.lists.expire(self.key, self.session_ttl)

    def add_messages(self, messages: Sequence[Message]) -> None:
        """One push per message (``@langchain/core``'s ``addMessages`` loop)."""
        for message in check_messages(messages):
            self.add_message(message)

    def get_messages(self) -> list[Message]:
        """``LRANGE 0 -1``, reversed into oldest-first order. Does not touch the TTL."""
        return [from_nested(item) for item in reversed(self.lists.lrange(self.key))]

    def raw(self) -> list[str]:
        """The list exactly as ``LRANGE key 0 -1`` returns it: newest first."""
        return self.lists.lrange(self.key)

    def ttl(self) -> int:
        """``TTL key``: seconds left, -1 without expiry, -2 once the key is gone."""
        return self.lists.ttl(self.key)

    def clear(self) -> None:
        """``DEL key``."""
        self.lists.delete(self.key)
