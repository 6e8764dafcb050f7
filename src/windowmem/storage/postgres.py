"""Conversations in PostgreSQL (psycopg 3): shared by every process and machine that can reach it.

Three tables, named from a *prefix* (default ``windowmem``):

* ``<prefix>_schema``: the schema version, one row;
* ``<prefix>_conversations``: one row per conversation holding the next free position.
  Appending bumps it with one ``UPDATE ... RETURNING``, which also locks the row, so
  concurrent appends to one conversation queue up and never collide or interleave;
* ``<prefix>_messages``: one row per message, keyed by ``(conversation_id, position)``,
  with role, content, tool calls (a JSON list) and the tool-call id.

PostgreSQL text cannot hold the NUL character; a message containing one is refused
with a StorageError rather than failing half-way.
"""

from __future__ import annotations

import re
import threading
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
from windowmem.storage.codec import ROLE_NAMES, message_from_row, tool_calls_to_json
from windowmem.storage.connections import SERVER_ADVICE, connect_postgres, first_line

#: The schema this code writes; stored in ``<prefix>_schema``.
SCHEMA_VERSION = 1

_PREFIX = re.compile(r"[a-z_][a-z0-9_]{0,40}")


class PostgresRepository(ClosesOnExit):
    """Conversations in the PostgreSQL database at *dsn*, in tables named ``<prefix>_...``."""

    def __init__(
        self, dsn: str, *, prefix: str = "windowmem", connect_timeout: float = 10.0
    ) -> None:
        if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
            raise StorageError(
                f"table prefix {prefix!r} is not a plain lower-case SQL name: use letters, digits and _"
            )
        self.prefix = prefix
        self._conversations = f"{prefix}_conversations"
        self._messages = f"{prefix}_messages"
        self._schema = f"{prefix}_schema"
        self._lock = threading.Lock()
        self._db = connect_postgres(
            dsn, timeout=connect_timeout, user="PostgresRepository", advice=SERVER_ADVICE
        )
        self._psycopg: Any = import_driver("psycopg", "PostgresRepository", "psycopg 3")
        try:
            self._ensure_schema()
        except BaseException:
            self._db.close()
            raise

    def _ensure_schema(self) -> None:
        roles = ", ".join(f"'{name}'" for name in ROLE_NAMES)
        with self._transaction() as cur:
            # Two processes creating the tables at once would clash in the catalog: serialise them.
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self._schema,))
            cur.execute(f"CREATE TABLE IF NOT EXISTS {self._schema} (version INTEGER NOT NULL)")
            cur.execute(f"SELECT version FROM {self._schema}")
            row = cur.fetchone()
            if row is not None and row[0] > SCHEMA_VERSION:
                raise StorageError(
                    f"tables {self.prefix}_* were written by a newer windowmem (schema {row[0]}, this "
                    f"one knows {SCHEMA_VERSION}); upgrade windowmem to read them"
                )
            if row is not None:
                return
            cur.execute(
                f"CREATE TABLE IF NOT EXISTS {self._conversations} ("
                " id TEXT PRIMARY KEY, next_position BIGINT NOT NULL)"
            )
            cur.execute(
                f"CREATE TABLE IF NOT EXISTS {self._messages} ("
                " conversation_id TEXT NOT NULL,"
                " position BIGINT NOT NULL,"
                f" role TEXT NOT NULL CHECK (role IN ({roles})),"
                " content TEXT NOT NULL,"
                " tool_calls JSONB NOT NULL DEFAULT '[]'::jsonb,"
                " tool_call_id TEXT,"
                " PRIMARY KEY (conversation_id, position))"
            )
            cur.execute(f"INSERT INTO {self._schema} (version) VALUES (%s)", (SCHEMA_VERSION,))

    def _transaction(self) -> _Transaction:
        return _Transaction(self)

    @property
    def schema_version(self) -> int:
        """The schema version stored in the database."""
        with self._transaction() as cur:
            cur.execute(f"SELECT version FROM {self._schema}")
            return cur.fetchone()[0]

    def find_conversation_ids(self) -> list[str]:
        with self._transaction() as cur:
            cur.execute(f"SELECT DISTINCT conversation_id FROM {self._messages}")
            return sorted(row[0] for row in cur.fetchall())

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        with self._transaction() as cur:
            cur.execute(
                f"SELECT role, content, tool_calls, tool_call_id FROM {self._messages}"
                " WHERE conversation_id = %s ORDER BY position",
                (conversation_id,),
            )
            return [message_from_row(*row) for row in cur.fetchall()]

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = _check_no_nul(check_messages(messages))
        with self._transaction() as cur:
            # Upserting the counter row first locks it: a concurrent append waits for us.
            cur.execute(
                f"INSERT INTO {self._conversations} (id, next_position) VALUES (%s, %s)"
                " ON CONFLICT (id) DO UPDATE SET next_position = EXCLUDED.next_position",
                (conversation_id, len(items)),
            )
            cur.execute(
                f"DELETE FROM {self._messages} WHERE conversation_id = %s", (conversation_id,)
            )
            self._insert(cur, conversation_id, 0, items)

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        conversation_id = check_conversation_id(conversation_id)
        with self._transaction() as cur:
            cur.execute(f"DELETE FROM {self._conversations} WHERE id = %s", (conversation_id,))
            cur.execute(
                f"DELETE FROM {self._messages} WHERE conversation_id = %s", (conversation_id,)
            )

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = _check_no_nul(check_messages(messages))
        if not items:
            return
        with self._transaction() as cur:
            cur.execute(
                f"INSERT INTO {self._conversations} (id, next_position) VALUES (%s, %s)"
                f" ON CONFLICT (id) DO UPDATE SET next_position = {self._conversations}.next_position + %s"
                " RETURNING next_position",
                (conversation_id, len(items), len(items)),
            )
            end = cur.fetchone()[0]
            self._insert(cur, conversation_id, end - len(items), items)

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        n = check_tail_size(n)
        if n == 0:
            return []
        with self._transaction() as cur:
            cur.execute(
                f"SELECT role, content, tool_calls, tool_call_id FROM {self._messages}"
                " WHERE conversation_id = %s ORDER BY position DESC LIMIT %s",
                (conversation_id, n),
            )
            rows = cur.fetchall()
        return [message_from_row(*row) for row in reversed(rows)]

    def update(self, conversation_id: str, change: Change) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        with self._transaction() as cur:
            # Touching the counter row locks it (creating it if need be) until we commit, so
            # appends and other updates of this conversation wait for us.
            cur.execute(
                f"INSERT INTO {self._conversations} (id, next_position) VALUES (%s, 0)"
                f" ON CONFLICT (id) DO UPDATE SET next_position = {self._conversations}.next_position",
                (conversation_id,),
            )
            cur.execute(
                f"SELECT role, content, tool_calls, tool_call_id FROM {self._messages}"
                " WHERE conversation_id = %s ORDER BY position",
                (conversation_id,),
            )
            new = _check_no_nul(
                checked_change(change, [message_from_row(*row) for row in cur.fetchall()])
            )
            cur.execute(
                f"UPDATE {self._conversations} SET next_position = %s WHERE id = %s",
                (len(new), conversation_id),
            )
            cur.execute(
                f"DELETE FROM {self._messages} WHERE conversation_id = %s", (conversation_id,)
            )
            self._insert(cur, conversation_id, 0, new)
        return new

    def _insert(self, cur: Any, conversation_id: str, start: int, items: list[Message]) -> None:
        cur.executemany(
            f"INSERT INTO {self._messages}"
            " (conversation_id, position, role, content, tool_calls, tool_call_id)"
            " VALUES (%s, %s, %s, %s, %s::jsonb, %s)",
            [
                (
                    conversation_id,
                    start + i,
                    m.role.value,
                    m.content,
                    tool_calls_to_json(m),
                    m.tool_call_id,
                )
                for i, m in enumerate(items)
            ],
        )

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"PostgresRepository(prefix={self.prefix!r})"


class _Transaction:
    """The repository's lock plus one database transaction, committed on success."""

    def __init__(self, repository: PostgresRepository) -> None:
        self._repository = repository

    def __enter__(self) -> Any:
        self._repository._lock.acquire()
        self._cursor = self._repository._db.cursor()
        return self._cursor

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: object
    ) -> None:
        db = self._repository._db
        try:
            self._cursor.close()
            if kind is None:
                db.commit()
            else:
                db.rollback()
        finally:
            self._repository._lock.release()
        if isinstance(exc, self._repository._psycopg.Error):
            raise StorageError(f"PostgreSQL refused the operation: {first_line(exc)}") from exc


def _check_no_nul(messages: list[Message]) -> list[Message]:
    for position, message in enumerate(messages):
        if any(
            "\x00" in text
            for text in (message.content, *message.tool_calls, message.tool_call_id or "")
        ):
            raise StorageError(
                f"message {position} contains a NUL character (\\x00), which PostgreSQL text cannot "
                "store: remove it, or use the SQLite or Redis repository"
            )
    return messages
