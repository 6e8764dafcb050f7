"""n8n's Postgres Chat Memory table, ``n8n_chat_histories``, as the product lays it out.

Read in ``@n8n/n8n-nodes-langchain`` 2.41.1 (``MemoryPostgresChat``) and the store it
uses, ``@langchain/community`` 1.1.27 ``PostgresChatMessageHistory``:

* the table (default name ``n8n_chat_histories``) is created if missing, with three
  columns: ``id SERIAL PRIMARY KEY, session_id VARCHAR(255) NOT NULL, message JSONB NOT NULL``;
* every message is one ``INSERT`` of ``(session_id, message)``, the message flattened to
  ``{...data, type}`` (:func:`~windowmem.storage.langchain_json.flattened`); adding
  several messages is one INSERT each, with no transaction around them;
* a load selects the session's *whole* history ``ORDER BY id``; the window is cut later,
  in the memory (``BufferWindowMemory``), so the table keeps every message;
* nothing expires: there is no timestamp column and no TTL (:data:`ADD_WRITTEN_AT` and
  :data:`DELETE_QUIET` are what a builder adds to delete by age).
* ``session_id`` is the id the node hands over: with *Session ID* on "Connected Chat
  Trigger Node" (the default) n8n 2.41.1 scopes it to ``<sessionId>__<sanitised node
  name>`` from typeVersion 1.4 (``utils/helpers.js``); with "Define below" it is the bare id.

The same class runs on SQLite (the lesson's default, where the column types are the
nearest SQLite has: ``INTEGER PRIMARY KEY AUTOINCREMENT`` for ``SERIAL``, ``TEXT`` for
``JSONB``) and on PostgreSQL, where the DDL is the product's word for word.

>>> from windowmem.messages import user, assistant
>>> from windowmem.storage.sql_database import open_sql
>>> history = N8nPostgresHistory(open_sql(":memory:"), "abc")
>>> history.add_messages([user("hi"), assistant("hello")])
>>> [(row[0], row[1]) for row in history.rows()]
[(1, 'abc'), (2, 'abc')]
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from windowmem.messages import Message
from windowmem.storage.base import StorageError, check_conversation_id, check_messages
from windowmem.storage.langchain_json import flattened, from_flattened, to_text
from windowmem.storage.sql_database import SqlDatabase

#: The node's default ``tableName``.
DEFAULT_TABLE = "n8n_chat_histories"
_PART = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")

#: The table's columns and their PostgreSQL types (``@langchain/community`` 1.1.27).
COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "SERIAL"),
    ("session_id", "VARCHAR(255)"),
    ("message", "JSONB"),
)
#: The product's DDL on PostgreSQL, and its SQLite equivalent.
POSTGRES_DDL = (
    "CREATE TABLE IF NOT EXISTS {table} ( id SERIAL PRIMARY KEY, "
    "session_id VARCHAR(255) NOT NULL, message JSONB NOT NULL );"
)
SQLITE_DDL = (
    "CREATE TABLE IF NOT EXISTS {table} ( id INTEGER PRIMARY KEY AUTOINCREMENT, "
    "session_id VARCHAR(255) NOT NULL, message TEXT NOT NULL );"
)
#: The product's INSERT: it names its two columns, so a column a builder adds keeps its default.
INSERT = "INSERT INTO {table} (session_id, message) VALUES (%s, %s{cast})"
#: What a builder adds to delete by age (PostgreSQL): the time each row was written, filled by
#: the database on every INSERT n8n makes (rows already there get the time the ALTER ran).
ADD_WRITTEN_AT = (
    "ALTER TABLE {table} ADD COLUMN IF NOT EXISTS written_at TIMESTAMPTZ NOT NULL DEFAULT now()"
)
#: Delete every session whose newest row is older than *days* (needs :data:`ADD_WRITTEN_AT`).
DELETE_QUIET = (
    "DELETE FROM {table} WHERE session_id IN (SELECT session_id FROM {table} "
    "GROUP BY session_id HAVING max(written_at) < now() - interval '{days:d} days')"
)


def n8n_table_identifier(name: str) -> str:
    """The quoted identifier n8n 2.41.1 makes of a *tableName*, or its error.

    Letters, digits and ``_`` (``$`` after the first character), at most ``schema.table``,
    lower-cased and double-quoted per part; empty means the default.

    >>> n8n_table_identifier("Chat.History")
    '"chat"."history"'
    >>> n8n_table_identifier("my-table")
    Traceback (most recent call last):
    ...
    windowmem.storage.base.StorageError: Invalid table name "my-table": Table names may only contain letters, numbers and underscores, with an optional "schema." prefix.
    """
    name = name or DEFAULT_TABLE
    parts = name.split(".")
    if len(parts) > 2 or not all(_PART.fullmatch(part) for part in parts):
        raise StorageError(
            f'Invalid table name "{name}": Table names may only contain letters, numbers and '
            'underscores, with an optional "schema." prefix.'
        )
    return ".".join(f'"{part.lower()}"' for part in parts)


class N8nPostgresHistory:
    """One session's messages in n8n's chat-history table, on *db* (SQLite or PostgreSQL)."""

    def __init__(self, db: SqlDatabase, session_id: str, *, table: str = DEFAULT_TABLE) -> None:
        self.db = db
        self.session_id = check_conversation_id(session_id)
        self.table = n8n_table_identifier(table)
        if db.dialect == "sqlite" and "." in self.table:
            raise StorageError(
                f"{table!r} names a schema; the SQLite stand-in has none: use a plain table name"
            )
        db.execute(self.ddl())

    def ddl(self) -> str:
        """The CREATE TABLE statement this engine runs."""
        template = POSTGRES_DDL if self.db.dialect == "postgresql" else SQLITE_DDL
        return template.format(table=self.table)

    def add_message(self, message: Message) -> None:
        """One INSERT, as ``PostgresChatMessageHistory.addMessage`` does."""
        check_messages(message)
        cast = "::jsonb" if self.db.dialect == "postgresql" else ""
        self.db.execute(
            INSERT.format(table=self.table, cast=cast),
            (self.session_id, to_text(flattened(message))),
        )

    def add_messages(self, messages: Sequence[Message]) -> None:
        """One INSERT per message and no transaction: ``@langchain/core``'s ``addMessages`` loop."""
        for message in check_messages(messages):
            self.add_message(message)

    def get_messages(self) -> list[Message]:
        """The session's whole history, ``ORDER BY id``."""
        rows = self.db.query(
            f"SELECT message FROM {self.table} WHERE session_id = %s ORDER BY id",
            (self.session_id,),
        )
        return [from_flattened(_as_object(row[0])) for row in rows]

    def clear(self) -> None:
        """``DELETE`` the session's rows."""
        self.db.execute(f"DELETE FROM {self.table} WHERE session_id = %s", (self.session_id,))

    def rows(self) -> list[tuple[int, str, str, str]]:
        """The session's rows as ``(id, session_id, type, content)``, read from the ``message`` JSON."""
        found = self.db.query(
            f"SELECT id, session_id, message FROM {self.table} WHERE session_id = %s ORDER BY id",
            (self.session_id,),
        )
        out = []
        for row_id, session, message in found:
            value = _as_object(message)
            out.append((int(row_id), session, str(value.get("type")), str(value.get("content"))))
        return out


def _as_object(value: Any) -> dict[str, Any]:
    # psycopg decodes JSONB to a dict; SQLite hands back the text.
    return value if isinstance(value, dict) else json.loads(value)
