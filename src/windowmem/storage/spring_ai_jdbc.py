"""Spring AI's JDBC chat memory table, ``SPRING_AI_CHAT_MEMORY``, as 2.0.1 lays it out.

Read in ``spring-projects/spring-ai`` at tag v2.0.1 (``JdbcChatMemoryRepository``,
``schema-postgresql.sql``):

* one row per message: ``conversation_id VARCHAR(36)``, ``content TEXT``, ``type
  VARCHAR(10)`` (``USER``, ``ASSISTANT``, ``SYSTEM``, ``TOOL``), ``"timestamp" TIMESTAMP``
  and ``sequence_id BIGINT`` (the message's place in the list, new in 2.0; 1.0.0 ordered
  by the timestamp alone);
* ``saveAll`` **replaces** the conversation: in one transaction it deletes every row of
  the id and inserts the given messages, numbered from 0. Tool results and assistant
  messages that call tools are dropped first, with a logged warning;
* a read is ``SELECT content, type, "timestamp" ... ORDER BY sequence_id``;
* nothing expires.

The repository keeps whatever it is given; the *window* (``MessageWindowChatMemory``,
:mod:`windowmem.policies.spring_ai`) decides that, before calling ``saveAll``.

>>> from windowmem.messages import user, assistant
>>> from windowmem.storage.sql_database import open_sql
>>> repo = SpringAiJdbcRepository(open_sql(":memory:"))
>>> repo.save_all("c1", [user("hi"), assistant("hello")])
>>> [(r[0], r[1], r[2], r[4]) for r in repo.rows("c1")]
[('c1', 'hi', 'USER', 0), ('c1', 'hello', 'ASSISTANT', 1)]
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from windowmem.messages import Message, Role
from windowmem.storage.base import StorageError, check_conversation_id, check_messages
from windowmem.storage.sql_database import SqlDatabase

TABLE = "SPRING_AI_CHAT_MEMORY"
#: Spring AI 2.0.1's PostgreSQL schema (``schema-postgresql.sql``); SQLite runs it as is.
SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ( conversation_id VARCHAR(36) NOT NULL, "
    "content TEXT NOT NULL, type VARCHAR(10) NOT NULL CHECK (type IN ('USER', 'ASSISTANT', "
    "'SYSTEM', 'TOOL')), \"timestamp\" TIMESTAMP NOT NULL, sequence_id BIGINT NOT NULL );"
)
INDEX = (
    f"CREATE INDEX IF NOT EXISTS {TABLE}_CONVERSATION_ID_SEQUENCE_ID_IDX "
    f"ON {TABLE}(conversation_id, sequence_id);"
)
#: The warning 2.0.1 logs when it drops tool messages.
TOOL_WARNING = (
    "JdbcChatMemoryRepository does not support tool call messages. Some messages were "
    "filtered out for conversation: {id}"
)
_TYPE = {Role.USER: "USER", Role.ASSISTANT: "ASSISTANT", Role.SYSTEM: "SYSTEM", Role.TOOL: "TOOL"}
_ROLE = {name: role for role, name in _TYPE.items()}
_log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class SpringAiJdbcRepository:
    """``JdbcChatMemoryRepository`` over *db*; *clock* stamps the rows (``Instant.now()``)."""

    def __init__(self, db: SqlDatabase, *, clock: Callable[[], datetime] = _now) -> None:
        self.db = db
        self.clock = clock
        db.execute(SCHEMA)
        db.execute(INDEX)

    def find_conversation_ids(self) -> list[str]:
        return sorted(
            row[0] for row in self.db.query(f"SELECT DISTINCT conversation_id FROM {TABLE}")
        )

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        rows = self.db.query(
            f"SELECT content, type FROM {TABLE} WHERE conversation_id = %s ORDER BY sequence_id",
            (check_conversation_id(conversation_id),),
        )
        return [Message(_ROLE[kind], content) for content, kind in rows]

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the conversation with *messages*: delete, then insert, in one transaction."""
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        kept = [m for m in items if m.role is not Role.TOOL and not m.calls_tool]
        if len(kept) != len(items):
            _log.warning(TOOL_WARNING.format(id=conversation_id))
        stamp = self.clock()
        with self.db.transaction() as tx:
            tx.execute(f"DELETE FROM {TABLE} WHERE conversation_id = %s", (conversation_id,))
            for position, message in enumerate(kept):
                tx.execute(
                    f'INSERT INTO {TABLE} (conversation_id, content, type, "timestamp", sequence_id)'
                    " VALUES (%s, %s, %s, %s, %s)",
                    (
                        conversation_id,
                        message.content,
                        _TYPE[message.role],
                        _stamp(stamp, self.db),
                        position,
                    ),
                )

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        self.db.execute(
            f"DELETE FROM {TABLE} WHERE conversation_id = %s",
            (check_conversation_id(conversation_id),),
        )

    def rows(self, conversation_id: str) -> list[tuple[str, str, str, str, int]]:
        """The conversation's rows as stored: ``(conversation_id, content, type, timestamp, sequence_id)``."""
        found = self.db.query(
            f'SELECT conversation_id, content, type, "timestamp", sequence_id FROM {TABLE}'
            " WHERE conversation_id = %s ORDER BY sequence_id",
            (check_conversation_id(conversation_id),),
        )
        return [(c, text, kind, str(stamp), int(seq)) for c, text, kind, stamp, seq in found]


def _stamp(stamp: datetime, db: SqlDatabase) -> Any:
    if not isinstance(stamp, datetime):
        raise StorageError(f"the repository's clock must return a datetime, got {stamp!r}")
    # SQLite has no TIMESTAMP type: store the text PostgreSQL would print.
    return stamp if db.dialect == "postgresql" else stamp.isoformat(sep=" ")
