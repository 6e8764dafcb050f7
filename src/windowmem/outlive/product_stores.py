"""The products' stores by name, so a process can open one from a short picklable spec.

A :class:`StoreSpec` names a layout and where it lives:

* ``n8n-sql``: n8n's Postgres Chat Memory table on SQLite or PostgreSQL;
* ``n8n-lists``: n8n's Redis Chat Memory list on Redis or its SQLite stand-in;
* ``spring-jdbc``: Spring AI's ``SPRING_AI_CHAT_MEMORY`` on SQLite or PostgreSQL;
* ``in-process``: n8n's Simple Memory, a map inside the process that opens it.

Worker and restart processes receive a spec, open the store themselves, and so really
share (or really do not share) what it holds.

>>> spec = StoreSpec("n8n-sql", ":memory:")
>>> spec.persistent, StoreSpec("in-process").persistent
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from windowmem.messages import Message
from windowmem.storage.list_stores import RedisLists, SqliteLists
from windowmem.storage.n8n_postgres_history import N8nPostgresHistory
from windowmem.storage.n8n_redis_history import N8nRedisHistory
from windowmem.storage.spring_ai_jdbc import SpringAiJdbcRepository
from windowmem.storage.sql_database import open_sql

StoreKind = Literal["in-process", "n8n-sql", "n8n-lists", "spring-jdbc"]


class ChatHistory(Protocol):
    """What n8n's memory nodes call on their store (LangChain's chat-message history)."""

    def add_messages(self, messages: list[Message]) -> None: ...
    def get_messages(self) -> list[Message]: ...
    def clear(self) -> None: ...


@dataclass(frozen=True)
class StoreSpec:
    """A store *kind* and its *location* (a SQLite path, a postgresql:// or redis:// URL)."""

    kind: StoreKind
    location: str = ""
    session_ttl: int = 0

    @property
    def persistent(self) -> bool:
        """Whether what it holds outlives the process that wrote it."""
        return self.kind != "in-process"

    def n8n_history(self, session_id: str) -> ChatHistory:
        """The n8n chat history of *session_id* in this store (not for ``in-process`` or Spring AI)."""
        if self.kind == "n8n-sql":
            return N8nPostgresHistory(open_sql(self.location), session_id)
        if self.kind == "n8n-lists":
            lists = (
                RedisLists(self.location)
                if self.location.startswith(("redis://", "rediss://"))
                else SqliteLists(self.location)
            )
            return N8nRedisHistory(lists, session_id, session_ttl=self.session_ttl)
        raise ValueError(f"a {self.kind} store has no n8n chat history table or list")

    def spring_repository(self) -> SpringAiJdbcRepository:
        """Spring AI's JDBC repository in this store."""
        if self.kind != "spring-jdbc":
            raise ValueError(f"a {self.kind} store is not Spring AI's JDBC table")
        return SpringAiJdbcRepository(open_sql(self.location))
