"""The embedded default: conversations in one SQLite file that survives restarts.

Safe with several processes writing to the same file:

* the database runs in WAL mode, so readers never block the writer;
* every write is one ``BEGIN IMMEDIATE`` transaction, which takes the write lock up
  front (a deferred transaction could fail half-way when two writers upgrade at once),
  and waits up to *busy_timeout* for it instead of failing at once;
* a process killed in the middle of a write (even by SIGKILL) leaves its transaction
  uncommitted, and SQLite rolls it back on the next open: every committed batch is
  there whole, and no half batch ever is.

With ``durable=True`` (the default) each commit is synced to disk (``synchronous=FULL``)
so it also survives a power cut; ``durable=False`` (``NORMAL``) still survives a killed
process and is faster.

The schema is versioned with SQLite's ``user_version``; messages are rows keyed by
``(conversation_id, position)``, so appending reads one index entry and loading the
tail reads only the rows it returns.

>>> from windowmem.messages import user
>>> with SqliteRepository(":memory:") as repo:
...     repo.append("c1", [user("¿Dónde está mi pedido #6023?")])
...     repo.find_by_conversation_id("c1")[0].content
'¿Dónde está mi pedido #6023?'
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from windowmem.messages import Message
from windowmem.storage.base import (
    Change,
    ClosesOnExit,
    StorageError,
    check_conversation_id,
    check_messages,
    check_tail_size,
    checked_change,
)
from windowmem.storage.codec import ROLE_NAMES, message_from_row, tool_calls_to_json

#: The schema this code writes; stored in ``PRAGMA user_version``.
SCHEMA_VERSION = 1

_ROLES_SQL = ", ".join(f"'{name}'" for name in ROLE_NAMES)
_SCHEMA = f"""
CREATE TABLE messages (
    conversation_id TEXT NOT NULL,
    position        INTEGER NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ({_ROLES_SQL})),
    content         TEXT NOT NULL,
    tool_calls      TEXT NOT NULL DEFAULT '[]',
    tool_call_id    TEXT,
    PRIMARY KEY (conversation_id, position)
) WITHOUT ROWID
"""
_COLUMNS = "role, content, tool_calls, tool_call_id"
_INSERT = f"INSERT INTO messages (conversation_id, position, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)"


class SqliteRepository(ClosesOnExit):
    """Conversations in the SQLite file at *path* (``":memory:"`` for a private in-memory one).

    One instance holds one connection, guarded by a lock so threads may share it.
    Open a new instance in each process: a connection must not cross a ``fork``.
    """

    def __init__(
        self, path: str | Path, *, durable: bool = True, busy_timeout: float = 30.0
    ) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StorageError(
                f"{self.path}: cannot open the SQLite database ({exc}); check the folder exists"
            ) from None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute(f"PRAGMA synchronous = {'FULL' if durable else 'NORMAL'}")
            self._ensure_schema()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StorageError(f"{self.path}: not a usable SQLite database ({exc})") from None
        except StorageError:
            self._db.close()
            raise

    def _ensure_schema(self) -> None:
        # An existing store needs no write lock to open: only a new file takes one.
        if self._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            return
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version == SCHEMA_VERSION:
                return
            if version > SCHEMA_VERSION:
                raise StorageError(
                    f"{self.path}: written by a newer windowmem (schema {version}, this one knows "
                    f"{SCHEMA_VERSION}); upgrade windowmem to read it"
                )
            tables = [
                row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            ]
            if tables:
                raise StorageError(
                    f"{self.path}: already holds tables {tables} that windowmem did not create; "
                    "use a new file for conversations"
                )
            db.execute(_SCHEMA)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction holding the database's write lock from its first statement."""
        with self._lock, self._explained():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                if self._db.in_transaction:  # some errors already rolled it back
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, parameters: tuple[object, ...]) -> list[tuple]:
        with self._lock, self._explained():
            return self._db.execute(sql, parameters).fetchall()

    @contextmanager
    def _explained(self) -> Iterator[None]:
        """SQLite's errors as StorageErrors that say what to do."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StorageError(
                    f"{self.path}: database is locked: another process held the write lock for longer "
                    "than busy_timeout; nothing was written, so retry, or raise busy_timeout"
                ) from exc
            raise StorageError(f"{self.path}: SQLite refused the operation ({exc})") from exc
        except sqlite3.Error as exc:
            raise StorageError(
                f"{self.path}: SQLite refused the operation ({exc}); nothing was written"
            ) from exc

    @property
    def schema_version(self) -> int:
        """The schema version stored in the file."""
        return self._read("PRAGMA user_version", ())[0][0]

    def find_conversation_ids(self) -> list[str]:
        return sorted(
            row[0] for row in self._read("SELECT DISTINCT conversation_id FROM messages", ())
        )

    def find_by_conversation_id(self, conversation_id: str) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        rows = self._read(
            f"SELECT {_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY position",
            (conversation_id,),
        )
        return [message_from_row(*row) for row in rows]

    def save_all(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        with self._write() as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            db.executemany(_INSERT, _rows(conversation_id, 0, items))

    def delete_by_conversation_id(self, conversation_id: str) -> None:
        conversation_id = check_conversation_id(conversation_id)
        with self._write() as db:
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))

    def append(self, conversation_id: str, messages: Sequence[Message]) -> None:
        conversation_id = check_conversation_id(conversation_id)
        items = check_messages(messages)
        if not items:
            return
        with self._write() as db:
            # MAX over the primary key is one index lookup, not a scan of the history.
            last = db.execute(
                "SELECT MAX(position) FROM messages WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()[0]
            db.executemany(_INSERT, _rows(conversation_id, 0 if last is None else last + 1, items))

    def load_tail(self, conversation_id: str, n: int) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        n = check_tail_size(n)
        if n == 0:
            return []
        rows = self._read(
            f"SELECT {_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY position DESC LIMIT ?",
            (conversation_id, n),
        )
        return [message_from_row(*row) for row in reversed(rows)]

    def update(self, conversation_id: str, change: Change) -> list[Message]:
        conversation_id = check_conversation_id(conversation_id)
        with self._write() as db:
            # The write lock is held from the read on: no other process can add in between.
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY position",
                (conversation_id,),
            ).fetchall()
            new = checked_change(change, [message_from_row(*row) for row in rows])
            db.execute("DELETE FROM messages WHERE conversation_id = ?", (conversation_id,))
            db.executemany(_INSERT, _rows(conversation_id, 0, new))
        return new

    def close(self) -> None:
        """Close the connection; the repository cannot be used afterwards."""
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"SqliteRepository({self.path!r})"


def _rows(
    conversation_id: str, start: int, messages: list[Message]
) -> Iterator[tuple[object, ...]]:
    for offset, message in enumerate(messages):
        yield (
            conversation_id,
            start + offset,
            message.role.value,
            message.content,
            tool_calls_to_json(message),
            message.tool_call_id,
        )
