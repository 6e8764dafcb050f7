"""Storage for conversations behind one interface, separate from any window policy.

>>> from windowmem.messages import user
>>> repo = open_repository("memory:")
>>> repo.append("user:42", [user("Hola")])
>>> repo.find_conversation_ids()
['user:42']
"""

from __future__ import annotations

from pathlib import Path

from windowmem.storage.base import (
    ChatMemoryRepository,
    StorageError,
    check_conversation_id,
    check_messages,
    check_tail_size,
)
from windowmem.storage.memory import InMemoryRepository
from windowmem.storage.postgres import PostgresRepository
from windowmem.storage.redis_lists import RedisRepository
from windowmem.storage.sqlite import SqliteRepository

__all__ = [
    "ChatMemoryRepository",
    "InMemoryRepository",
    "PostgresRepository",
    "RedisRepository",
    "SqliteRepository",
    "StorageError",
    "check_conversation_id",
    "check_messages",
    "check_tail_size",
    "open_repository",
]


def open_repository(location: str | Path) -> ChatMemoryRepository:
    """The repository a location names.

    ``memory:`` is volatile; ``sqlite:///path/to/file.db`` (or a plain path ending in
    ``.db``/``.sqlite``) is the embedded default; ``postgresql://...`` and
    ``redis://...`` reach servers.
    """
    text = str(location)
    if text == "memory:":
        return InMemoryRepository()
    if text.startswith("sqlite:///"):
        return SqliteRepository(text[len("sqlite:///") :] or ":memory:")
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresRepository(text)
    if text.startswith(("redis://", "rediss://", "unix://")):
        return RedisRepository(text)
    if isinstance(location, Path) or text.endswith((".db", ".sqlite", ".sqlite3")):
        return SqliteRepository(text)
    raise StorageError(
        f"cannot tell which store {text!r} names: use memory:, sqlite:///file.db, "
        "postgresql://user:pass@host/db or redis://host:port/0"
    )
