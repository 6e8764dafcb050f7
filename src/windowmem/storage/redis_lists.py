"""Conversations in Redis (redis-py): one list per conversation, one JSON message per element.

Keys, all under *prefix* (default ``windowmem:``):

* ``<prefix>messages:<conversation id>``: the list; ``RPUSH`` appends in time
  proportional to what is added and ``LRANGE -n -1`` reads the last *n*;
* ``<prefix>conversations``: a set of the ids that have messages, so listing them
  needs no ``KEYS`` scan of the whole server.

Every write is one ``MULTI``/``EXEC`` block, so a reader never sees a conversation
half-replaced and the id set never disagrees with the lists; ``update`` adds ``WATCH``
and retries when another client wrote the list between its read and its write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from windowmem.messages import Message
from windowmem.storage.base import (
    Change,
    ClosesOnExit,
    StorageError,
    check_conversation_id,
    check_messages,
    check_tail_size,
    checked_change,
    import_driver,
)
from windowmem.storage.codec import message_from_json, message_to_json
from windowmem.storage.connections import SERVER_ADVICE, connect_redis

#: How many times an update is retried when another client writes the conversation meanwhile.
UPDATE_ATTEMPTS = 100


class RedisRepository(ClosesOnExit):
    """Conversations in the Redis server at *url*, under keys starting with *prefix*."""

    def __init__(
        self, url: str, *, prefix: str = "windowmem:", socket_timeout: float = 10.0
    ) -> None:
        if not isinstance(prefix, str) or prefix == "":
            raise StorageError("the Redis key prefix must be non-empty text, e.g. 'windowmem:'")
        redis: Any = import_driver("redis", "RedisRepository", "redis-py")
        self.prefix = prefix
        self._ids_key = f"{prefix}conversations"
        self._redis_error = redis.RedisError
        self._watch_error = redis.WatchError
        self._client = connect_redis(
            url, timeout=socket_timeout, user="RedisRepository", advice=SERVER_ADVICE
        )

    def _key(self, conversation_id: str) -> str:
        return f"{self.prefix}messages:{conversation_id}"

    def _run(self, operation: Any) -> Any:
        try:
            return operation()
        except self._redis_error as exc:
            raise StorageError(f"Redis refused the operation: {exc}") from exc

    def find_conversation_ids(self) -> list[str]:
        members = self._run(lambda: self._client.smembers(self._ids_key))
        return sorted(member.decode("utf-8") for member in members)

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        key = self._key(check_conversation_id(conversation_id))
        return [
            message_from_json(item) for item in self._run(lambda: self._client.lrange(key, 0, -1))
        ]

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = [message_to_json(m) for m in check_messages(messages)]
        key = self._key(conversation_id)

        def replace() -> None:
            with self._client.pipeline(transaction=True) as multi:
                multi.delete(key)
                if items:
                    multi.rpush(key, *items)
                    multi.sadd(self._ids_key, conversation_id)
                else:
                    multi.srem(self._ids_key, conversation_id)
                multi.execute()

        self._run(replace)

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        conversation_id = check_conversation_id(conversation_id)
        key = self._key(conversation_id)

        def delete() -> None:
            with self._client.pipeline(transaction=True) as multi:
                multi.delete(key)
                multi.srem(self._ids_key, conversation_id)
                multi.execute()

        self._run(delete)

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = [message_to_json(m) for m in check_messages(messages)]
        if not items:
            return
        key = self._key(conversation_id)

        def push() -> None:
            with self._client.pipeline(transaction=True) as multi:
                multi.rpush(key, *items)
                multi.sadd(self._ids_key, conversation_id)
                multi.execute()

        self._run(push)

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        key = self._key(check_conversation_id(conversation_id))
        n = check_tail_size(n)
        if n == 0:
            return []
        return [
            message_from_json(item) for item in self._run(lambda: self._client.lrange(key, -n, -1))
        ]

    def update(self, conversation_id: str, change: Change) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        key = self._key(conversation_id)

        def read_change_write() -> list[Message]:
            # Optimistic: WATCH the list, and if another client writes it before EXEC,
            # read again and redo the change.
            for _ in range(UPDATE_ATTEMPTS):
                with self._client.pipeline(transaction=True) as multi:
                    try:
                        multi.watch(key)
                        stored = [message_from_json(item) for item in multi.lrange(key, 0, -1)]
                        new = checked_change(change, stored)
                        multi.multi()
                        multi.delete(key)
                        if new:
                            multi.rpush(key, *(message_to_json(m) for m in new))
                            multi.sadd(self._ids_key, conversation_id)
                        else:
                            multi.srem(self._ids_key, conversation_id)
                        multi.execute()
                        return new
                    except self._watch_error:
                        continue
            raise StorageError(
                f"conversation {conversation_id!r} kept changing under {UPDATE_ATTEMPTS} attempts to update it; retry"
            )

        return self._run(read_change_write)

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def __repr__(self) -> str:
        return f"RedisRepository(prefix={self.prefix!r})"
