"""Redis lists with expiry: the real server, or a stand-in in SQLite on a clock you move.

n8n's Redis Chat Memory needs five list commands: ``LPUSH``, ``LRANGE``, ``EXPIRE``,
``TTL`` and ``DEL``. :class:`RedisLists` sends them to a Redis server;
:class:`SqliteLists` gives the same answers from a SQLite file, with time read from an
injected clock, so a lesson can let an hour pass without waiting one. ``TTL`` answers
as Redis does: seconds left, ``-1`` for a key without expiry, ``-2`` for no key.

>>> from windowmem.policies.n8n import ManualClock
>>> clock = ManualClock()
>>> lists = SqliteLists(":memory:", clock)
>>> lists.lpush("abc", "first"); lists.lpush("abc", "second"); lists.expire("abc", 60)
>>> lists.lrange("abc"), lists.ttl("abc")
(['second', 'first'], 60)
>>> clock.advance(seconds=61)
>>> lists.lrange("abc"), lists.ttl("abc")
([], -2)
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from windowmem.storage.base import ClosesOnExit
from windowmem.storage.connections import connect_redis, redacted


class ListStore(Protocol):
    """The list commands a Redis-backed chat history uses."""

    where: str

    def lpush(self, key: str, value: str) -> None: ...
    def lrange(self, key: str) -> list[str]: ...
    def expire(self, key: str, seconds: int) -> None: ...
    def ttl(self, key: str) -> int: ...
    def delete(self, key: str) -> None: ...


class RedisLists(ClosesOnExit):
    """The list commands on the Redis server at *url* (redis-py)."""

    def __init__(self, url: str, *, socket_timeout: float = 3.0) -> None:
        self.where = redacted(url)
        self._client = connect_redis(url, timeout=socket_timeout, user="RedisLists")

    def lpush(self, key: str, value: str) -> None:
        self._client.lpush(key, value)

    def lrange(self, key: str) -> list[str]:
        return [item.decode("utf-8") for item in self._client.lrange(key, 0, -1)]

    def expire(self, key: str, seconds: int) -> None:
        self._client.expire(key, seconds)

    def ttl(self, key: str) -> int:
        return int(self._client.ttl(key))

    def delete(self, key: str) -> None:
        self._client.delete(key)

    def close(self) -> None:
        self._client.close()

    def __repr__(self) -> str:
        return f"RedisLists({self.where})"


class SqliteLists(ClosesOnExit):
    """The same commands over a SQLite file, expiry measured on *clock* (seconds)."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.where = f"SQLite {path} (Redis lists modelled)"
        self.clock = clock
        self._db = sqlite3.connect(
            str(path), timeout=30, isolation_level=None, check_same_thread=False
        )
        self._db.executescript(
            "CREATE TABLE IF NOT EXISTS list_items ("
            " key TEXT NOT NULL, position INTEGER NOT NULL, value TEXT NOT NULL,"
            " PRIMARY KEY (key, position));"
            "CREATE TABLE IF NOT EXISTS list_expiry (key TEXT PRIMARY KEY, expires_at REAL NOT NULL);"
        )

    def _drop_if_expired(self, key: str) -> None:
        row = self._db.execute(
            "SELECT expires_at FROM list_expiry WHERE key = ?", (key,)
        ).fetchone()
        if row is not None and row[0] <= self.clock():
            self.delete(key)

    def lpush(self, key: str, value: str) -> None:
        self._drop_if_expired(key)
        # LPUSH puts the value at the head: give it a position below every other one.
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            low = self._db.execute(
                "SELECT MIN(position) FROM list_items WHERE key = ?", (key,)
            ).fetchone()[0]
            self._db.execute(
                "INSERT INTO list_items (key, position, value) VALUES (?, ?, ?)",
                (key, 0 if low is None else low - 1, value),
            )

    def lrange(self, key: str) -> list[str]:
        self._drop_if_expired(key)
        rows = self._db.execute(
            "SELECT value FROM list_items WHERE key = ? ORDER BY position", (key,)
        ).fetchall()
        return [row[0] for row in rows]

    def expire(self, key: str, seconds: int) -> None:
        self._drop_if_expired(key)
        if self._db.execute("SELECT 1 FROM list_items WHERE key = ? LIMIT 1", (key,)).fetchone():
            self._db.execute(
                "INSERT INTO list_expiry (key, expires_at) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at",
                (key, self.clock() + seconds),
            )

    def ttl(self, key: str) -> int:
        self._drop_if_expired(key)
        if not self._db.execute(
            "SELECT 1 FROM list_items WHERE key = ? LIMIT 1", (key,)
        ).fetchone():
            return -2
        row = self._db.execute(
            "SELECT expires_at FROM list_expiry WHERE key = ?", (key,)
        ).fetchone()
        return -1 if row is None else math.ceil(row[0] - self.clock())

    def delete(self, key: str) -> None:
        self._db.execute("DELETE FROM list_items WHERE key = ?", (key,))
        self._db.execute("DELETE FROM list_expiry WHERE key = ?", (key,))

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"SqliteLists({self.where})"
