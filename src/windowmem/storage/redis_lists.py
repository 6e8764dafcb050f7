"""Conversations in Redis (redis-py): one list per conversation, one JSON message per element.

Keys, all under *prefix* (default ``windowmem:``):

* ``<prefix>messages:<conversation id>``: the list; ``RPUSH`` appends in time
  proportional to what is added and ``LRANGE -n -1`` reads the last *n*;
* ``<prefix>conversations``: a set of the ids that have messages, so listing them
  needs no ``KEYS`` scan of the whole server.

Every write is one ``MULTI``/``EXEC`` block, so a reader never sees a conversation
half-replaced and the id set never disagrees with the lists.
"""

from __future__ import annotations

from typing import Any, Sequence

from windowmem.messages import Message
from windowmem.storage.base import StorageError, check_conversation_id, check_messages, check_tail_size
from windowmem.storage.codec import message_from_json, message_to_json


def _import_redis() -> Any:
    try:
        import redis
    except ImportError:  # pragma: no cover - the stores extra is part of the test install
        raise StorageError("RedisRepository needs redis-py: pip install 'windowmem[stores]'") from None
    return redis


class RedisRepository:
    """Conversations in the Redis server at *url*, under keys starting with *prefix*."""

    def __init__(self, url: str, *, prefix: str = "windowmem:", socket_timeout: float = 10.0) -> None:
        if not isinstance(prefix, str) or prefix == "":
            raise StorageError("the Redis key prefix must be non-empty text, e.g. 'windowmem:'")
        redis = _import_redis()
        self.prefix = prefix
        self._ids_key = f"{prefix}conversations"
        self._redis_error = redis.RedisError
        try:
            self._client = redis.Redis.from_url(url, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout)
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise StorageError(
                f"cannot reach Redis ({exc}): check the URL, or start a local server with "
                "`eval \"$(bash .ci/services.sh)\"`"
            ) from None

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
        return [message_from_json(item) for item in self._run(lambda: self._client.lrange(key, 0, -1))]

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
        return [message_from_json(item) for item in self._run(lambda: self._client.lrange(key, -n, -1))]

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def __enter__(self) -> "RedisRepository":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RedisRepository(prefix={self.prefix!r})"
