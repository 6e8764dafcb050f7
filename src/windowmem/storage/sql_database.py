"""One SQL connection, SQLite or PostgreSQL, behind the few calls the product layouts need.

The product tables (:mod:`~windowmem.storage.n8n_postgres_history`,
:mod:`~windowmem.storage.spring_ai_jdbc`) are written once, with ``%s`` placeholders,
and run on either engine: SQLite is the lesson's default (a file, no server), PostgreSQL
the real thing when one is reachable. Each statement of :meth:`SqlDatabase.execute`
commits on its own, as a driver in autocommit mode does; :meth:`SqlDatabase.transaction`
groups statements into one.

>>> db = open_sql(":memory:")
>>> db.execute("CREATE TABLE t (x INTEGER)")
>>> db.execute("INSERT INTO t (x) VALUES (%s)", (7,))
>>> db.query("SELECT x FROM t")
[(7,)]
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from windowmem.storage.base import ClosesOnExit, StorageError
from windowmem.storage.connections import connect_postgres, redacted

Dialect = Literal["sqlite", "postgresql"]


class SqlDatabase(ClosesOnExit):
    """A DB-API connection and its *dialect*; *where* says where it points, without a password."""

    def __init__(self, connection: Any, dialect: Dialect, where: str) -> None:
        self._db = connection
        self.dialect: Dialect = dialect
        self.where = where
        self._in_transaction = False

    def _sql(self, statement: str) -> str:
        return statement.replace("%s", "?") if self.dialect == "sqlite" else statement

    def execute(self, statement: str, params: Sequence[Any] = ()) -> None:
        """Run one statement; outside :meth:`transaction` it commits at once."""
        self._run(statement, params)
        if not self._in_transaction:
            self._db.commit()

    def query(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows a SELECT returns, as tuples."""
        rows = self._run(statement, params)
        if not self._in_transaction:
            self._db.commit()
        return rows

    def _run(self, statement: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
        cursor = self._db.cursor()
        try:
            cursor.execute(self._sql(statement), tuple(params))
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []
        except Exception as exc:
            if not self._in_transaction:
                self._db.rollback()
            raise StorageError(
                f"{self.dialect} refused `{statement.split()[0]} ...`: {exc}"
            ) from exc
        finally:
            cursor.close()

    @contextmanager
    def transaction(self) -> Iterator[SqlDatabase]:
        """Statements in the block commit together, or not at all."""
        if self.dialect == "sqlite":
            self._db.execute("BEGIN IMMEDIATE")
        self._in_transaction = True
        try:
            yield self
        except BaseException:
            self._db.rollback()
            raise
        else:
            self._db.commit()
        finally:
            self._in_transaction = False

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __repr__(self) -> str:
        return f"SqlDatabase({self.dialect}, {self.where})"


def open_sql(location: str | Path, *, connect_timeout: float = 3.0) -> SqlDatabase:
    """A database for ``postgresql://...`` or for a SQLite file path (``:memory:`` for none)."""
    text = str(location)
    if text.startswith(("postgresql://", "postgres://")):
        connection = connect_postgres(text, timeout=connect_timeout, user="a PostgreSQL layout")
        return SqlDatabase(connection, "postgresql", redacted(text))
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///") :]
    # isolation_level=None: we open transactions ourselves; each lone statement commits.
    connection = sqlite3.connect(text, timeout=30, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA busy_timeout = 30000")
    if text != ":memory:":
        connection.execute("PRAGMA journal_mode = WAL")
    return SqlDatabase(_AutocommitSqlite(connection), "sqlite", f"SQLite {text}")


class _AutocommitSqlite:
    """sqlite3 in autocommit mode, with commit/rollback that are harmless outside a transaction."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def cursor(self) -> sqlite3.Cursor:
        return self._connection.cursor()

    def execute(self, statement: str) -> None:
        self._connection.execute(statement)

    def commit(self) -> None:
        if self._connection.in_transaction:
            self._connection.execute("COMMIT")

    def rollback(self) -> None:
        if self._connection.in_transaction:
            self._connection.execute("ROLLBACK")

    def close(self) -> None:
        self._connection.close()
