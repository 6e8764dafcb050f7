"""Spring AI's JDBC chat memory table, ``SPRING_AI_CHAT_MEMORY``, as 2.0.1 lays it out and writes it.

Read in ``spring-projects/spring-ai`` at tag v2.0.1 (``JdbcChatMemoryRepository``,
``schema-postgresql.sql``):

* one row per message: ``conversation_id VARCHAR(36)``, ``content TEXT``, ``type
  VARCHAR(10)`` (``USER``, ``ASSISTANT``, ``SYSTEM``, ``TOOL``), ``"timestamp" TIMESTAMP``
  and ``sequence_id BIGINT`` (the message's place in the list: added in v2.0.0-RC1, absent
  from v2.0.0-M1 to M8 and 1.1.8, which order by the timestamp alone), with the two
  indexes ``..._CONVERSATION_ID_TIMESTAMP_IDX`` and ``..._CONVERSATION_ID_SEQUENCE_ID_IDX``;
* ``saveAll`` **replaces** the conversation: in one transaction it deletes every row of
  the id and inserts the given messages, numbered from 0. Tool results and assistant
  messages that call tools are dropped first, with a logged warning;
* a read is ``SELECT content, type, "timestamp" ... ORDER BY sequence_id``, and each message
  read back carries its row's time in its metadata (key ``CONVERSATION_TS``,
  ``JdbcChatMemoryRepository_message_timestamp``). ``saveAll`` writes that time again, so
  a message keeps the time it was first saved; only a message without it (a new one) is
  stamped ``Instant.now()``. (1.0.0 stamped every row anew on each save, 1 ms apart.)
  A Python ``Message`` has no metadata, so this repository remembers the time of each
  message object it returned and reuses it when that same object is saved;
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
#: Spring AI 2.0.1's PostgreSQL schema (``schema-postgresql.sql``, with :data:`INDEXES`);
#: SQLite runs it as is.
SCHEMA = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} ( conversation_id VARCHAR(36) NOT NULL, "
    "content TEXT NOT NULL, type VARCHAR(10) NOT NULL CHECK (type IN ('USER', 'ASSISTANT', "
    "'SYSTEM', 'TOOL')), \"timestamp\" TIMESTAMP NOT NULL, sequence_id BIGINT NOT NULL );"
)
INDEXES = (
    f"CREATE INDEX IF NOT EXISTS {TABLE}_CONVERSATION_ID_TIMESTAMP_IDX "
    f'ON {TABLE}(conversation_id, "timestamp");',
    f"CREATE INDEX IF NOT EXISTS {TABLE}_CONVERSATION_ID_SEQUENCE_ID_IDX "
    f"ON {TABLE}(conversation_id, sequence_id);",
)
#: The metadata key under which 2.0.1 hands back each message's stored time.
CONVERSATION_TS = "JdbcChatMemoryRepository_message_timestamp"
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
    """``JdbcChatMemoryRepository`` over *db*; *clock* stamps new messages (``Instant.now()``)."""

    def __init__(self, db: SqlDatabase, *, clock: Callable[[], datetime] = _now) -> None:
        self.db = db
        self.clock = clock
        # id(message) -> (message, stored time): 2.0.1's CONVERSATION_TS metadata. The
        # message is held too, so its id cannot be reused while the entry lives.
        self._read_back: dict[int, tuple[Message, Any]] = {}
        db.execute(SCHEMA)
        for index in INDEXES:
            db.execute(index)

    def find_conversation_ids(self) -> list[str]:
        return sorted(
            row[0] for row in self.db.query(f"SELECT DISTINCT conversation_id FROM {TABLE}")
        )

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        rows = self.db.query(
            f'SELECT content, type, "timestamp" FROM {TABLE} WHERE conversation_id = %s'
            " ORDER BY sequence_id",
            (check_conversation_id(conversation_id),),
        )
        found = [Message(_ROLE[kind], content) for content, kind, _ in rows]
        for message, (_, _, stamp) in zip(found, rows, strict=True):
            self._read_back[id(message)] = (message, stamp)
        return found

    def stored_time(self, message: Message) -> Any:
        """The time *message* carries (``CONVERSATION_TS``) if this repository read it back, else None."""
        entry = self._read_back.get(id(message))
        return entry[1] if entry is not None and entry[0] is message else None

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        """Replace the conversation with *messages*: delete, then insert, in one transaction.

        A message this repository read back keeps its stored time; any other is stamped
        with :attr:`clock` now, one call per message as 2.0.1 calls ``Instant.now()``.
        """
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        kept = [m for m in items if m.role is not Role.TOOL and not m.calls_tool]
        if len(kept) != len(items):
            _log.warning(TOOL_WARNING.format(id=conversation_id))
        stamps = [self.stored_time(m) for m in kept]
        stamps = [_stamp(self.clock(), self.db) if s is None else s for s in stamps]
        with self.db.transaction() as tx:
            tx.execute(f"DELETE FROM {TABLE} WHERE conversation_id = %s", (conversation_id,))
            for position, (message, stamp) in enumerate(zip(kept, stamps, strict=True)):
                tx.execute(
                    f'INSERT INTO {TABLE} (conversation_id, content, type, "timestamp", sequence_id)'
                    " VALUES (%s, %s, %s, %s, %s)",
                    (
                        conversation_id,
                        message.content,
                        _TYPE[message.role],
                        stamp,
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
